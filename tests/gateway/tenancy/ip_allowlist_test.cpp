// IP allowlists (tenancy/ip_allowlists.hpp) through a real gateway over HTTP, on SQLite and on
// PostgreSQL: set, read and removed by activity, enforced on every request an API key stamps,
// at the key's level and at its organization's, behind a trusted proxy too.
#include "server/client_address.hpp"
#include "support/auth_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class IpAllowlistTest : public BackendTest {};
SIGNET_BACKEND_SUITE(IpAllowlistTest);

json::Object rulesParams(std::initializer_list<std::pair<const char*, const char*>> rules) {
  json::Array a = json::array();
  for (auto [cidr, label] : rules) {
    json::Object r = json::object();
    r->set("cidr", cidr);
    if (*label) r->set("label", label);
    a->add(r);
  }
  json::Object p = json::object();
  p->set("rules", a);
  return p;
}

json::Object setList(TestGateway& gw, const std::string& org, json::Object params,
                     const Client& as) {
  return as.submit("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", org, params);
}

// A second API key of the root user, and a client stamping with it.
Key secondKey(TestGateway& gw) {
  Key key = newKey();
  auto p = json::parseObject(R"({"apiKeys":[{"apiKeyName":"ci","publicKey":")" + key.publicKey +
                                 R"(","curveType":"API_KEY_CURVE_P256"}],"userId":")" +
                                 gw.root().userId + R"("})",
                             "test");
  resultOf(gw.rootClient().submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
                                  gw.root().organizationId, p),
           "createApiKeysResult");
  return key;
}

// The HTTP status of whoami for `client` in `org`, and the message of a refusal.
std::pair<int, std::string> whoami(const Client& client, const std::string& org) {
  try {
    client.query("whoami", orgBody(org));
    return {200, ""};
  } catch (const RequestError& e) {
    return {e.httpStatus(), e.what()};
  }
}

TEST_P(IpAllowlistTest, AKeyFencedOutOfLoopbackIsRefusedWhileTheOthersWork) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  Key ci = secondKey(gw);
  Client ciClient = gw.clientWith(ci.stamper);
  auto params = rulesParams({{"10.0.0.0/8", "office"}, {"2001:db8::/32", ""}});
  params->set("publicKey", ci.publicKey);
  resultOf(setList(gw, org, params, gw.rootClient()), "setIpAllowlistResult");

  auto [status, message] = whoami(ciClient, org);
  EXPECT_EQ(status, 403);
  EXPECT_NE(message.find("IP allowlist of API key " + ci.publicKey), std::string::npos) << message;
  EXPECT_NE(message.find("client address 127.0.0.1"), std::string::npos) << message;
  // Submissions too, and nothing is stored of a refused one.
  try {
    ciClient.submit("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", org, rulesParams({}));
    ADD_FAILURE() << "a fenced-out key submitted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 403);
  }
  // The organization's other key is not covered.
  EXPECT_EQ(whoami(gw.rootClient(), org).first, 200);

  // What get_ip_allowlist shows, in the OpenAPI shape.
  auto body = orgBody(org);
  body->set("publicKey", ci.publicKey);
  auto list = gw.rootClient().query("get_ip_allowlist", body)->getObject("allowlist");
  EXPECT_EQ(list->getValue<std::string>("organizationId"), org);
  EXPECT_EQ(list->getValue<std::string>("publicKey"), ci.publicKey);
  EXPECT_EQ(list->getValue<std::string>("onEvaluationError"), "DENY");
  EXPECT_FALSE(list->has("enabled"));
  auto rules = list->getArray("rules");
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ(rules->getObject(0)->getValue<std::string>("cidr"), "10.0.0.0/8");
  EXPECT_EQ(rules->getObject(0)->getValue<std::string>("label"), "office");
  EXPECT_FALSE(rules->getObject(1)->has("label"));
  EXPECT_FALSE(rules->getObject(0)->getValue<std::string>("createdAt").empty());

  // A loopback rule lets it back in.
  params = rulesParams({{"10.0.0.0/8", "office"}, {"127.0.0.0/8", "here"}});
  params->set("publicKey", ci.publicKey);
  resultOf(setList(gw, org, params, gw.rootClient()), "setIpAllowlistResult");
  EXPECT_EQ(whoami(ciClient, org).first, 200);

  // Removed, the key is free again; removing what is not there is a 404.
  json::Object remove = json::object();
  remove->set("publicKey", ci.publicKey);
  resultOf(gw.rootClient().submit("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", org,
                                  remove),
           "removeIpAllowlistResult");
  EXPECT_EQ(gw.rootClient()
                .query("get_ip_allowlist", body)
                ->getObject("allowlist")
                ->getArray("rules")
                ->size(),
            0u);
  auto again = gw.rootClient().submit("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
                                      org, remove);
  EXPECT_NE(failureOf(again).find("has no IP allowlist"), std::string::npos);
}

TEST_P(IpAllowlistTest, BadRulesAreRefusedNamingTheFieldAndNothingIsStored) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  Key ci = secondKey(gw);
  auto kept = rulesParams({{"127.0.0.1", "here"}});
  kept->set("publicKey", ci.publicKey);
  resultOf(setList(gw, org, kept, gw.rootClient()), "setIpAllowlistResult");
  struct Case {
    std::string field, value;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"cidr", "10.0.0.0/33", "parameters.rules[1].cidr: \"10.0.0.0/33\" is not a CIDR"},
           {"cidr", "300.1.1.1/8", "parameters.rules[1].cidr: \"300.1.1.1/8\" is not a CIDR"},
           {"cidr", "", "parameters.rules[1].cidr: \"\" is not a CIDR"},
           {"cidr", "office", "parameters.rules[1].cidr: \"office\" is not a CIDR"},
           {"onEvaluationError", "MAYBE", "parameters.onEvaluationError: \"MAYBE\""},
           {"publicKey", "02aa", "parameters.publicKey: \"02aa\" is not an API key"},
       }) {
    auto p = rulesParams({{"::1", ""}, {c.field == "cidr" ? c.value.c_str() : "10.0.0.0/8", ""}});
    p->set("publicKey", ci.publicKey);
    if (c.field != "cidr") p->set(c.field, c.value);
    try {
      setList(gw, org, p, gw.rootClient());
      ADD_FAILURE() << c.value << " was taken";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
  auto body = orgBody(org);
  body->set("publicKey", ci.publicKey);
  auto rules =
      gw.rootClient().query("get_ip_allowlist", body)->getObject("allowlist")->getArray("rules");
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ(rules->getObject(0)->getValue<std::string>("cidr"), "127.0.0.1");
  EXPECT_EQ(whoami(gw.clientWith(ci.stamper), org).first, 200);
}

// An organization-level list covers every key of the organization that holds the key: the
// sub-organization's own key answers to the sub-organization's list, the parent's key acting on
// the sub-organization to the parent's.
TEST_P(IpAllowlistTest, AnOrganizationLevelListOnASubOrganizationCoversItsKeys) {
  // Behind a trusted proxy, so that the test can also be a client at an allowed address.
  TestGateway gw(GetParam(), {"memo"}, {}, {},
                 [](Config& c) { c.server.trustedProxies = {parseCidr("127.0.0.0/8").value()}; });
  auto sub = createSubOrganization(gw, "ip@example.com", "+15550100");
  Client subClient = gw.clientWith(sub.userKey.stamper);
  Client atBranch = gw.clientWith(sub.userKey.stamper);
  atBranch.setHeaders({{"X-Forwarded-For", "192.0.2.7"}});
  ASSERT_EQ(whoami(subClient, sub.id).first, 200);
  auto params = rulesParams({{"192.0.2.0/24", "branch"}});
  params->set("enabled", true);
  resultOf(setList(gw, sub.id, params, subClient), "setIpAllowlistResult");

  auto [status, message] = whoami(subClient, sub.id);
  EXPECT_EQ(status, 403);
  EXPECT_NE(message.find("IP allowlist of organization " + sub.id), std::string::npos) << message;
  EXPECT_EQ(whoami(atBranch, sub.id).first, 200);
  // The parent's key is the parent's: the sub-organization's list does not cover it.
  EXPECT_EQ(whoami(gw.rootClient(), sub.id).first, 200);
  auto list = gw.rootClient().query("get_ip_allowlist", orgBody(sub.id))->getObject("allowlist");
  EXPECT_TRUE(list->getValue<bool>("enabled"));
  EXPECT_FALSE(list->has("publicKey"));
  // The parent's own list is another: it has none.
  EXPECT_FALSE(gw.rootClient()
                   .query("get_ip_allowlist", orgBody(gw.root().organizationId))
                   ->getObject("allowlist")
                   ->getValue<bool>("enabled"));

  // Disabled (from the branch, the one place its key may still act), it covers no one.
  params->set("enabled", false);
  resultOf(setList(gw, sub.id, params, atBranch), "setIpAllowlistResult");
  EXPECT_EQ(whoami(subClient, sub.id).first, 200);
}

// Behind a trusted proxy the forwarded address is the one checked, ::1 included; from an
// address that is not a trusted proxy, X-Forwarded-For claims nothing.
TEST_P(IpAllowlistTest, TheForwardedAddressCountsFromATrustedProxyOnly) {
  for (bool trusted : {true, false}) {
    TestGateway gw(GetParam(), {"memo"}, {}, {}, [trusted](Config& c) {
      if (trusted) c.server.trustedProxies = {parseCidr("127.0.0.0/8").value()};
    });
    const std::string org = gw.root().organizationId;
    Key ci = secondKey(gw);
    auto params = rulesParams({{"::1", "the proxy's own host"}});
    params->set("publicKey", ci.publicKey);
    resultOf(setList(gw, org, params, gw.rootClient()), "setIpAllowlistResult");
    Client client = gw.clientWith(ci.stamper);
    client.setHeaders({{"X-Forwarded-For", "::1"}});
    EXPECT_EQ(whoami(client, org).first, trusted ? 200 : 403) << trusted;
    client.setHeaders({{"X-Forwarded-For", "::2"}});
    auto [status, message] = whoami(client, org);
    EXPECT_EQ(status, 403);
    EXPECT_NE(message.find(trusted ? "client address ::2" : "client address 127.0.0.1"),
              std::string::npos)
        << message;
  }
}

// When a rule, or the stored list itself, cannot be read (here written into the store by hand),
// onEvaluationError decides: DENY refuses, saying so; ALLOW lets the request through.
TEST_P(IpAllowlistTest, OnEvaluationErrorDecidesWhenARuleCannotBeRead) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  Key ci = secondKey(gw);
  Client client = gw.clientWith(ci.stamper);
  for (const std::string onError : {"DENY", "ALLOW"}) {
    auto params = rulesParams({{"10.0.0.0/8", ""}});
    params->set("publicKey", ci.publicKey);
    params->set("onEvaluationError", onError);
    resultOf(setList(gw, org, params, gw.rootClient()), "setIpAllowlistResult");
    for (const std::string stored :
         {R"({"rules":[{"cidr":"not a network","label":"","createdAtMs":1}]})", "{not json"}) {
      gw.gateway().database().transaction([&](Db& db) {
        db.exec("UPDATE ip_allowlists SET rules = ? WHERE public_key = ?", {stored, ci.publicKey});
      });
      auto [status, message] = whoami(client, org);
      if (onError == "DENY") {
        EXPECT_EQ(status, 403) << stored;
        EXPECT_NE(message.find("could not be read"), std::string::npos) << message;
      } else {
        EXPECT_EQ(status, 200) << message;
      }
    }
  }
}

}  // namespace
}  // namespace signet::test
