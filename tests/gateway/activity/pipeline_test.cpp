// The submit pipeline and the HTTP surface through a real gateway: stamps, liveness,
// idempotency, authorization, bad input, activity queries.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <cstdio>
#include <set>
#include <thread>

#include "activity/activity_store.hpp"
#include "store/sql_connection.hpp"
#include "support/lock_waits.hpp"
#include "support/metric_sample.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"
#include "tenancy/directory.hpp"

namespace signet::test {
namespace {

class PipelineTest : public BackendTest {};
SIGNET_BACKEND_SUITE(PipelineTest);

json::Object parseError(const HttpResponse& r) {
  return json::parseObject(r.body, "error");
}

json::Object memoParams(const std::string& text) {
  json::Object p = json::object();
  p->set("text", text);
  return p;
}

TEST_P(PipelineTest, IdenticalBodyReturnsTheSameActivity) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  std::string body = activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId,
                                  memoParams("once"));
  auto first = client.submitRaw("signet_create_memo", body);
  auto second = client.submitRaw("signet_create_memo", body);
  EXPECT_EQ(first->getValue<std::string>("id"), second->getValue<std::string>("id"));
  EXPECT_EQ(first->getValue<std::string>("fingerprint"),
            "sha256:" + crypto::toHex(crypto::sha256(body)));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM memo_entries"), 1);
}

TEST_P(PipelineTest, ActivityRecordShape) {
  TestGateway gw(GetParam());
  auto a = gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                                  gw.root().organizationId, memoParams("shape"));
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(a->getValue<std::string>("organizationId"), gw.root().organizationId);
  EXPECT_EQ(a->getValue<std::string>("type"), "ACTIVITY_TYPE_SIGNET_CREATE_MEMO");
  EXPECT_TRUE(json::isUuid(a->getValue<std::string>("id")));
  EXPECT_FALSE(a->getValue<bool>("canApprove"));
  EXPECT_FALSE(a->getValue<bool>("canReject"));
  EXPECT_FALSE(a->has("failure"));
  auto created = a->getObject("createdAt");
  EXPECT_TRUE(created->get("seconds").isString());
  EXPECT_TRUE(created->get("nanos").isString());
  auto votes = a->getArray("votes");
  ASSERT_EQ(votes->size(), 1u);
  auto vote = votes->getObject(0);
  EXPECT_EQ(vote->getValue<std::string>("selection"), "VOTE_SELECTION_APPROVED");
  EXPECT_EQ(vote->getValue<std::string>("userId"), gw.root().userId);
  EXPECT_EQ(vote->getValue<std::string>("publicKey"), gw.rootStamper()->publicKeyHex());
  EXPECT_EQ(vote->getValue<std::string>("scheme"), "SIGNATURE_SCHEME_TK_API_P256");
  EXPECT_EQ(vote->getObject("user")->getValue<std::string>("userId"), gw.root().userId);
  EXPECT_EQ(
      a->getObject("intent")->getObject("signetCreateMemoIntent")->getValue<std::string>("text"),
      "shape");
  // Time-ordered ids (crypto::uuidV7): the activity's begins with its creation time in
  // milliseconds, which keeps its rows at the end of their indexes (docs/durability.md).
  int64_t createdMs = std::stoll(created->getValue<std::string>("seconds")) * 1000 +
                      std::stoll(created->getValue<std::string>("nanos")) / 1000000;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%012llx", static_cast<unsigned long long>(createdMs));
  std::string id = a->getValue<std::string>("id");
  EXPECT_EQ(id.substr(0, 8) + id.substr(9, 4), prefix) << id;
  EXPECT_EQ(id[14], '7') << id;
  EXPECT_EQ(vote->getValue<std::string>("id")[14], '7');
}

TEST_P(PipelineTest, EnvelopeInAnyKeyOrderWithNullOptionals) {
  TestGateway gw(GetParam());
  // Rust's order, with generateAppProofs null.
  std::string body = "{\"type\":\"ACTIVITY_TYPE_SIGNET_CREATE_MEMO\",\"timestampMs\":\"" +
                     std::to_string(systemNowMs()) + "\",\"organizationId\":\"" +
                     gw.root().organizationId +
                     "\",\"parameters\":{\"text\":\"rust order\"},\"generateAppProofs\":null}";
  auto a = gw.rootClient().submitRaw("signet_create_memo", body);
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
}

TEST_P(PipelineTest, StampRefusals) {
  TestGateway gw(GetParam());
  std::string body = json::stringify(orgBody(gw.root().organizationId));
  Client unstamped(gw.baseUrl(), nullptr);

  auto none = unstamped.post("/public/v1/query/whoami", body);
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(parseError(none)->getValue<int>("code"), 16);

  // A stamp made over a different body.
  auto [name, value] = gw.rootStamper()->stamp(body);
  std::string tampered = json::stringify(orgBody(crypto::uuidV4()));
  auto bad = unstamped.post("/public/v1/query/whoami", tampered, {{name, value}});
  EXPECT_EQ(bad.status, 401);
  auto err = parseError(bad);
  EXPECT_EQ(err->getValue<int>("code"), 16);
  EXPECT_EQ(err->getArray("details")->getObject(0)->getValue<std::string>("turnkeyErrorCode"),
            "SIGNATURE_INVALID");

  // An unknown key: both organizations named, and the substring clients map.
  auto stranger = std::make_shared<ApiKeyStamper>(crypto::generatePrivateKey(crypto::Curve::kP256),
                                                  stamp::Scheme::kP256);
  try {
    gw.clientWith(stranger).query("whoami", orgBody(gw.root().organizationId));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
    std::string m = e.what();
    EXPECT_NE(m.find("could not find public key in organization or its parent organization"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(gw.root().organizationId), std::string::npos) << m;
  }

  // Garbage in the header, and one over the header limit.
  EXPECT_EQ(unstamped.post("/public/v1/query/whoami", body, {{"X-Stamp", "%%%"}}).status, 401);
  auto huge =
      unstamped.post("/public/v1/query/whoami", body, {{"X-Stamp", std::string(5000, 'A')}});
  EXPECT_EQ(huge.status, 400);
  EXPECT_NE(parseError(huge)->getValue<std::string>("message").find("X-Stamp"), std::string::npos);
}

TEST_P(PipelineTest, KeyOfAnotherTenantIsRefusedNamingBothOrganizations) {
  TestGateway gw(GetParam());
  auto [other, otherStamper] = gw.createOrganization("Other Org");
  int64_t before = gw.count("SELECT COUNT(*) FROM activities");
  try {
    gw.clientWith(otherStamper).query("whoami", orgBody(gw.root().organizationId));
    FAIL();
  } catch (const RequestError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.httpStatus(), 401);
    EXPECT_NE(m.find(gw.root().organizationId), std::string::npos) << m;
    EXPECT_NE(m.find(other.organizationId), std::string::npos) << m;
  }
  try {
    gw.clientWith(otherStamper)
        .submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId,
                memoParams("intrusion"));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), before);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM memo_entries"), 0);
}

TEST_P(PipelineTest, ParentKeysReachSubOrganizationsButNeverTheReverseOrASibling) {
  TestGateway gw(GetParam());
  // Sub-organizations inserted directly: create_sub_organization comes with the tenancy work.
  auto makeSub = [&](const std::string& name) {
    auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
    auto pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
    std::string subId = crypto::uuidV4(), userId = crypto::uuidV4();
    int64_t now = systemNowMs();
    gw.write([&](Db& db) {
      directory::insertOrganization(db, {subId, name, gw.root().organizationId, 1, now, now});
      directory::insertUser(db,
                            {userId, subId, name + " user", std::nullopt, std::nullopt, now, now});
      directory::addRootQuorumMember(db, subId, userId);
      directory::insertApiKey(db, {crypto::uuidV4(), subId, userId, "k", pub, "API_KEY_CURVE_P256",
                                   "CREDENTIAL_TYPE_API_KEY_P256", std::nullopt, now, now});
    });
    return std::make_pair(subId,
                          std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256));
  };
  auto [subId, subStamper] = makeSub("child");
  auto [siblingId, siblingStamper] = makeSub("sibling");

  // The parent's key acts on the sub-organization; whoami reports where the key lives.
  auto me = gw.rootClient().query("whoami", orgBody(subId));
  EXPECT_EQ(me->getValue<std::string>("organizationId"), gw.root().organizationId);
  auto sub = gw.clientWith(subStamper);
  EXPECT_EQ(sub.query("whoami", orgBody(subId))->getValue<std::string>("organizationId"), subId);

  // (whoami resolves downward by design, so the reverse is checked with list_users.)
  for (const auto& target : {gw.root().organizationId, siblingId}) {
    try {
      sub.query("list_users", orgBody(target));
      FAIL() << "a sub-organization's key reached " << target;
    } catch (const RequestError& e) {
      std::string m = e.what();
      EXPECT_EQ(e.httpStatus(), 401);
      EXPECT_NE(m.find(target), std::string::npos) << m;
      EXPECT_NE(m.find(subId), std::string::npos) << m;
    }
  }
}

TEST_P(PipelineTest, LivenessWindow) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  int64_t now = systemNowMs();
  for (int64_t ts : {now - 61 * 60 * 1000, now + 6 * 60 * 1000}) {
    try {
      client.submitRaw("signet_create_memo",
                       activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId,
                                    memoParams("late"), ts));
      FAIL() << ts;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find("timestampMs"), std::string::npos);
    }
  }
  // 59 minutes old and 4 minutes ahead are fine.
  for (int64_t ts : {now - 59 * 60 * 1000, now + 4 * 60 * 1000})
    EXPECT_EQ(
        client
            .submitRaw("signet_create_memo",
                       activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId,
                                    memoParams("fresh " + std::to_string(ts)), ts))
            ->getValue<std::string>("status"),
        "ACTIVITY_STATUS_COMPLETED");
}

TEST_P(PipelineTest, NonRootUserIsImplicitlyDeniedAndTheDenialIsStored) {
  TestGateway gw(GetParam());
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  std::string userId = crypto::uuidV4();
  gw.write([&](Db& db) {
    directory::insertUser(db, {userId, gw.root().organizationId, "member", std::nullopt,
                               std::nullopt, systemNowMs(), systemNowMs()});
    directory::insertApiKey(
        db, {crypto::uuidV4(), gw.root().organizationId, userId, "k", pub, "API_KEY_CURVE_P256",
             "CREDENTIAL_TYPE_API_KEY_P256", std::nullopt, systemNowMs(), systemNowMs()});
  });
  auto member =
      gw.clientWith(std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256));
  auto a = member.submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                         gw.root().organizationId, memoParams("not allowed"));
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED");
  std::string message = a->getObject("failure")->getValue<std::string>("message");
  EXPECT_NE(message.find("implicit deny"), std::string::npos) << message;
  EXPECT_NE(message.find(userId), std::string::npos) << message;
  EXPECT_EQ(a->getObject("failure")->getValue<int>("code"), 7);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM memo_entries"), 0);
  // Stored, so that it can be audited.
  auto q = orgBody(gw.root().organizationId);
  q->set("activityId", a->getValue<std::string>("id"));
  EXPECT_EQ(gw.rootClient()
                .query("get_activity", q)
                ->getObject("activity")
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_FAILED");
  // Queries are open to any user of the organization.
  EXPECT_EQ(
      member.query("whoami", orgBody(gw.root().organizationId))->getValue<std::string>("userId"),
      userId);
}

TEST_P(PipelineTest, BadInputGetsAClearErrorAndWritesNothing) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  const std::string org = gw.root().organizationId;
  auto send = [&](const std::string& path, const std::string& body) {
    auto [name, value] = gw.rootStamper()->stamp(body);
    return client.post(path, body, {{name, value}});
  };
  struct Case {
    std::string path, body, expectInMessage;
    int status;
  };
  std::string ts = std::to_string(systemNowMs());
  std::vector<Case> cases = {
      {"/public/v1/submit/signet_create_memo", "{not json", "malformed JSON", 400},
      {"/public/v1/submit/signet_create_memo", "[1,2]", "must be a JSON object", 400},
      {"/public/v1/submit/signet_create_memo",
       "{\"type\":\"ACTIVITY_TYPE_NOPE\",\"timestampMs\":\"" + ts + "\",\"organizationId\":\"" +
           org + "\",\"parameters\":{}}",
       "ACTIVITY_TYPE_NOPE", 400},
      {"/public/v1/submit/signet_create_memo",
       "{\"type\":\"ACTIVITY_TYPE_SIGNET_CREATE_MEMO\",\"timestampMs\":\"" + ts +
           "\",\"organizationId\":\"" + org + "\",\"parameters\":{\"text\":42}}",
       "parameters.text", 400},
      {"/public/v1/submit/signet_create_memo",
       "{\"type\":\"ACTIVITY_TYPE_SIGNET_CREATE_MEMO\",\"timestampMs\":\"soon\",\"organizationId\":"
       "\"" +
           org + "\",\"parameters\":{\"text\":\"x\"}}",
       "timestampMs", 400},
      {"/public/v1/submit/signet_create_memo",
       "{\"type\":\"ACTIVITY_TYPE_SIGNET_CREATE_MEMO\",\"timestampMs\":\"" + ts +
           "\",\"organizationId\":\"not-a-uuid\",\"parameters\":{\"text\":\"x\"}}",
       "organizationId", 400},
      {"/public/v1/submit/signet_create_memo",
       "{\"type\":\"ACTIVITY_TYPE_SIGNET_CREATE_MEMO\",\"timestampMs\":\"" + ts +
           "\",\"organizationId\":\"" + org + "\"}",
       "parameters", 400},
      {"/public/v1/submit/no_such_thing",
       "{\"type\":\"X\",\"timestampMs\":\"" + ts + "\",\"organizationId\":\"" + org +
           "\",\"parameters\":{}}",
       "no_such_thing", 404},
      {"/public/v1/query/no_such_query", "{\"organizationId\":\"" + org + "\"}", "no_such_query",
       404},
      {"/public/v1/query/list_activities",
       "{\"organizationId\":\"" + org + "\",\"paginationOptions\":{\"limit\":\"500\"}}",
       "paginationOptions.limit", 400},
      {"/public/v1/query/list_activities",
       "{\"organizationId\":\"" + org + "\",\"filterByStatus\":[\"DONE\"]}", "filterByStatus[0]",
       400},
  };
  for (const auto& c : cases) {
    auto r = send(c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.body << " -> " << r.body;
    EXPECT_EQ(r.contentType, "application/json");
    auto err = parseError(r);
    EXPECT_TRUE(err->has("code") && err->has("message") && err->has("details")) << r.body;
    EXPECT_NE(err->getValue<std::string>("message").find(c.expectInMessage), std::string::npos)
        << c.body << " -> " << r.body;
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM memo_entries"), 0);

  // Too large a body: refused before it is read.
  auto big = send("/public/v1/submit/signet_create_memo",
                  std::string(gw.gateway().config().maxBodyBytes + 1024, ' '));
  EXPECT_EQ(big.status, 413);
  EXPECT_NE(parseError(big)->getValue<std::string>("message").find("exceeds the limit"),
            std::string::npos);
}

// The required parameters every activity served declares (every row of the core and of these
// plugins declares its shape, but one that takes none): an intent without one, or with it null,
// is a 400 naming it, and nothing is stored. The sender is a member whom
// no policy allows anything, so an intent that reached the policy engine would be stored as a
// denial instead. An optional parameter sent as null is taken as absent, as the handlers'
// json:: helpers take it.
TEST_P(PipelineTest, EveryActivityNamesAMissingRequiredParameterAndStoresNothing) {
  TestGateway gw(GetParam(), {"memo", "sessions", "signing", "webhooks"});
  Org team(gw);
  auto member = team.as(team.user("member"));
  const std::string org = gw.root().organizationId;
  const int64_t stored = gw.count("SELECT COUNT(*) FROM activities");
  size_t required = 0, coreRows = 0;
  const std::set<std::string> takingNone = {"ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION"};
  for (const auto& module : gw.gateway().catalog().modules()) {
    if (!module->enabled) continue;
    for (const auto& spec : module->activities) {
      // A version the rollout does not open to every organization is refused before its shape.
      if (spec.rollout.state != RolloutState::kGeneral &&
          spec.rollout.state != RolloutState::kDeprecated)
        continue;
      coreRows += module->name == "core";
      EXPECT_NE(spec.parameters.empty(), !takingNone.contains(spec.type))
          << module->name << "'s " << spec.type
          << (spec.parameters.empty() ? " declares no parameter shape"
                                      : " declares parameters, yet is listed as taking none");
      for (const ParamSpec& param : spec.parameters) {
        if (!param.required) continue;
        ++required;
        for (bool asNull : {false, true}) {
          json::Object p = wellShaped(spec);
          p->remove(param.name);
          if (asNull) p->set(param.name, Poco::Dynamic::Var());
          try {
            member.submitRaw(spec.path, activityBody(spec.type, org, p));
            ADD_FAILURE() << spec.type << " ran without " << param.name;
          } catch (const RequestError& e) {
            EXPECT_EQ(e.httpStatus(), 400) << spec.type << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find("missing required field parameters." + param.name),
                      std::string::npos)
                << spec.type << ": " << e.what();
          }
        }
      }
    }
  }
  EXPECT_GE(coreRows, 42u);
  EXPECT_GT(required, 120u);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), stored);

  // Optional parameters sent as null: update_user changes only what is given.
  json::Object p = json::object();
  p->set("userId", gw.root().userId);
  p->set("userName", "Renamed Root");
  for (const char* optional : {"userEmail", "userPhoneNumber", "userTagIds"})
    p->set(optional, Poco::Dynamic::Var());
  auto updated = gw.rootClient().submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", org, p);
  EXPECT_EQ(updated->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
      << json::stringify(updated);
}

TEST_P(PipelineTest, HttpSurface) {
  TestGateway gw(GetParam());
  Client raw(gw.baseUrl(), nullptr);
  auto health = raw.post("/healthz", "");
  EXPECT_EQ(health.status, 404);  // POST on a GET path is an unknown route
  Poco::Net::HTTPClientSession s(
      "127.0.0.1",
      static_cast<uint16_t>(std::stoi(gw.baseUrl().substr(gw.baseUrl().rfind(':') + 1))));
  auto get = [&](const std::string& path, const std::string& method = "GET") {
    Poco::Net::HTTPRequest req(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
    s.sendRequest(req);
    Poco::Net::HTTPResponse resp;
    std::string body;
    Poco::StreamCopier::copyToString(s.receiveResponse(resp), body);
    return std::make_tuple(static_cast<int>(resp.getStatus()), resp.getContentType(), body, resp);
  };
  auto [hs, hct, hb, hr] = get("/healthz");
  EXPECT_EQ(hs, 200);
  EXPECT_EQ(hct, "application/json");
  auto [ws, wct, wb, wr] = get("/.well-known/signet.json");
  EXPECT_EQ(ws, 200);
  EXPECT_EQ(json::parseObject(wb, "well-known")->getValue<std::string>("signerPublicKey"),
            gw.gateway().signerPublicKey());
  auto [ms, mct, mb, mr] = get("/public/v1/query/whoami");
  EXPECT_EQ(ms, 405);
  EXPECT_EQ(json::parseObject(mb, "error")->getValue<int>("code"), 12);
  auto [us, uct, ub, ur] = get("/nowhere");
  EXPECT_EQ(us, 404);
  EXPECT_EQ(json::parseObject(ub, "error")->getValue<int>("code"), 5);
  auto [os, oct, ob, orr] = get("/public/v1/submit/create_api_keys", "OPTIONS");
  EXPECT_EQ(os, 204);
  EXPECT_NE(orr.get("Access-Control-Allow-Headers").find("X-Stamp"), std::string::npos);
}

TEST_P(PipelineTest, GetAndListActivitiesWithFiltersAndPagination) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  std::vector<std::string> ids;  // oldest first
  int64_t t = systemNowMs() - 10'000;
  for (int i = 0; i < 5; ++i) {
    gw.gateway().setClock([t, i] { return t + i * 1000; });
    ids.push_back(
        client
            .submitRaw("signet_create_memo",
                       activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId,
                                    memoParams("m" + std::to_string(i))))
            ->getValue<std::string>("id"));
  }
  gw.gateway().setClock(systemNowMs);
  auto list = [&](json::Object extra) {
    auto body = orgBody(gw.root().organizationId);
    for (const auto& [k, v] : *extra) body->set(k, v);
    std::vector<std::string> out;
    auto a = client.query("list_activities", body)->getArray("activities");
    for (size_t i = 0; i < a->size(); ++i)
      out.push_back(a->getObject(static_cast<unsigned>(i))->getValue<std::string>("id"));
    return out;
  };
  EXPECT_EQ(list(json::object()),
            (std::vector<std::string>{ids[4], ids[3], ids[2], ids[1], ids[0]}));
  auto page = json::object();
  auto opts = json::object();
  opts->set("limit", "2");
  page->set("paginationOptions", opts);
  EXPECT_EQ(list(page), (std::vector<std::string>{ids[4], ids[3]}));
  opts->set("after", ids[3]);
  EXPECT_EQ(list(page), (std::vector<std::string>{ids[2], ids[1]}));
  opts->remove("after");
  opts->set("before", ids[1]);
  EXPECT_EQ(list(page), (std::vector<std::string>{ids[3], ids[2]}));
  auto byType = json::object();
  byType->set("filterByType", json::stringArray({"ACTIVITY_TYPE_CREATE_API_KEYS_V2"}));
  EXPECT_TRUE(list(byType).empty());
  auto byStatus = json::object();
  byStatus->set("filterByStatus", json::stringArray({"ACTIVITY_STATUS_COMPLETED"}));
  EXPECT_EQ(list(byStatus).size(), 5u);

  auto q = orgBody(gw.root().organizationId);
  q->set("activityId", ids[2]);
  EXPECT_EQ(client.query("get_activity", q)->getObject("activity")->getValue<std::string>("id"),
            ids[2]);
  q->set("activityId", crypto::uuidV4());
  try {
    client.query("get_activity", q);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404);
  }
  // Another tenant cannot read these activities even by id.
  auto [other, otherStamper] = gw.createOrganization("Other");
  auto foreign = orgBody(other.organizationId);
  foreign->set("activityId", ids[0]);
  try {
    gw.clientWith(otherStamper).query("get_activity", foreign);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404);
  }
}

TEST_P(PipelineTest, RestartKeepsOrganizationsKeysAndActivities) {
  TestGateway gw(GetParam());
  auto first = gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                                      gw.root().organizationId, memoParams("durable"));
  std::string signer = gw.gateway().signerPublicKey();
  gw.restart();
  EXPECT_EQ(gw.gateway().signerPublicKey(), signer);
  auto client = gw.rootClient();
  EXPECT_EQ(
      client.query("whoami", orgBody(gw.root().organizationId))->getValue<std::string>("userId"),
      gw.root().userId);
  auto q = orgBody(gw.root().organizationId);
  q->set("activityId", first->getValue<std::string>("id"));
  EXPECT_EQ(client.query("get_activity", q)->getObject("activity")->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  auto memos =
      client.query("signet_list_memos", orgBody(gw.root().organizationId))->getArray("memos");
  ASSERT_EQ(memos->size(), 1u);
  EXPECT_EQ(memos->getObject(0)->getValue<std::string>("text"), "durable");
}

// A create_user_tag body, and its activity as an identical request would have stored it.
struct IdenticalBody {
  std::string body;
  ActivityRecord stored;
};
IdenticalBody identicalTagBody(TestGateway& gw, const std::string& name) {
  const std::string org = gw.root().organizationId;
  json::Object parameters = json::object();
  parameters->set("userTagName", name);
  parameters->set("userIds", json::array());
  json::Object envelope = json::object();
  envelope->set("type", "ACTIVITY_TYPE_CREATE_USER_TAG");
  envelope->set("timestampMs", std::to_string(gw.gateway().nowMs()));
  envelope->set("organizationId", org);
  envelope->set("parameters", parameters);
  IdenticalBody out{json::stringify(envelope), {}};
  ActivityRecord& a = out.stored;
  a.id = "winner-" + crypto::uuidV4();
  a.organizationId = org;
  a.type = "ACTIVITY_TYPE_CREATE_USER_TAG";
  a.status = "ACTIVITY_STATUS_COMPLETED";
  a.fingerprint = activities::fingerprintOf(out.body);
  a.intent = json::object();
  a.intent->set("createUserTagIntent", parameters);
  a.result = json::object();
  a.votes = json::array();
  a.createdAtMs = a.updatedAtMs = gw.gateway().nowMs();
  return out;
}

// A session of the test's own, in a transaction that holds `stored` written and uncommitted:
// another lane's or gateway's identical request, past its look-up and not committed yet.
std::unique_ptr<SqlConnection> holdingStored(TestGateway& gw, const ActivityRecord& stored) {
  auto other = openConnection(gw.gateway().config().database);
  other->begin();
  activities::insert(*other, stored);
  return other;
}

// The policy decisions counted so far (signet_policy_outcomes_total, all outcomes): a run that
// keeps nothing counts none.
double decisionsCounted(const TestGateway& gw) {
  std::string text = httpGet(gw.baseUrl(), "/metrics").body;
  double total = 0;
  for (const char* outcome : {"ALLOW", "DENY", "CONSENSUS_NEEDED", "AUTHENTICATORS_NEEDED"})
    total +=
        std::max(0.0, metricSample(text, std::string("signet_policy_outcomes_total{outcome=\"") +
                                             outcome + "\"}"));
  return total;
}

// Submits `body` while `other` holds what it wrote uncommitted; once the gateway waits on it,
// `other` commits. The answer, or why it was refused.
json::Object submitPastHeldRows(TestGateway& gw, const std::string& body, SqlConnection& other,
                                std::string& refused) {
  json::Object answered;
  std::thread submitting([&] {
    try {
      answered = gw.rootClient().submitRaw("create_user_tag", body);
    } catch (const std::exception& e) {
      refused = e.what();
    }
  });
  const bool waited = sessionsWaitForLocks(gw.gateway().config().database);
  other.commit();
  submitting.join();
  if (!waited) refused += " (the gateway never waited for the held rows)";
  return waited ? answered : nullptr;
}

// Two identical bodies on PostgreSQL, each past the look-up of its fingerprint before either
// commits (two write lanes, two gateways): the second's row waits on the first's key. Here the
// first is a transaction of the test's own, holding its row uncommitted while the gateway runs
// the same body. Once the gateway waits on it and it commits, the gateway's run is rolled back
// (the tag its handler made is gone) and the stored activity answers, as for a body sent again:
// no unique-key error, and one activity.
TEST(PipelinePostgresTest, ANewActivityThatLosesToAnIdenticalOneKeepsNothingAndAnswersIt) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  IdenticalBody race = identicalTagBody(gw, "raced");
  auto other = holdingStored(gw, race.stored);

  std::string refused;
  const double decisions = decisionsCounted(gw);
  json::Object answered = submitPastHeldRows(gw, race.body, *other, refused);
  ASSERT_TRUE(answered) << refused;
  EXPECT_EQ(answered->getValue<std::string>("id"), race.stored.id) << json::stringify(answered);
  EXPECT_EQ(answered->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(decisionsCounted(gw), decisions);  // the losing run's decision kept nothing
  EXPECT_EQ(
      gw.count("SELECT COUNT(*) FROM activities WHERE fingerprint = ?", {race.stored.fingerprint}),
      1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM user_tags WHERE name = 'raced'"), 0);
}

// The same race, where the second run reads what the first wrote: once the first commits, a tag
// of that name exists, and the handler fails (ALREADY_EXISTS). The run's failure is written on
// the activity prepared again, which finds the stored one: that activity answers, and no failed
// activity is stored beside it. (The test's session also holds the tag table locked, so that
// the handler reads it after the commit.)
TEST(PipelinePostgresTest, ANewActivityFailedByWhatAnIdenticalOneDidAnswersThatOne) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  IdenticalBody race = identicalTagBody(gw, "raced");
  auto other = holdingStored(gw, race.stored);
  other->exec(
      "INSERT INTO user_tags (id, organization_id, name, created_at_ms, updated_at_ms) VALUES "
      "(?, ?, 'raced', 0, 0)",
      {"tag-" + crypto::uuidV4(), race.stored.organizationId});
  other->exec("LOCK TABLE user_tags IN ACCESS EXCLUSIVE MODE");

  std::string refused;
  const double decisions = decisionsCounted(gw);
  json::Object answered = submitPastHeldRows(gw, race.body, *other, refused);
  ASSERT_TRUE(answered) << refused;
  EXPECT_EQ(answered->getValue<std::string>("id"), race.stored.id) << json::stringify(answered);
  EXPECT_EQ(decisionsCounted(gw), decisions);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM user_tags WHERE name = 'raced'"), 1);
  EXPECT_EQ(
      gw.count("SELECT COUNT(*) FROM activities WHERE fingerprint = ?", {race.stored.fingerprint}),
      1);
}

}  // namespace
}  // namespace signet::test
