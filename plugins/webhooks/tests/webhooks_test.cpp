// The webhooks plugin through a real gateway: endpoint operations and their refusals, and
// deliveries to receivers on loopback, each checked against the published JWKS the way
// @turnkey/crypto's verifier checks it (the signed input, the headers, a fresh timestamp).
#include <Poco/String.h>

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "../schema.hpp"
#include "signet/encoding.hpp"
#include "store/database.hpp"
#include "support/auth_fixtures.hpp"
#include "support/http_recorder.hpp"
#include "support/signing_fixtures.hpp"
#include "support/tcp_peer.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class WebhooksTest : public BackendTest {};
SIGNET_BACKEND_SUITE(WebhooksTest);

std::map<std::string, json::Object> settings(const std::string& text) {
  return {{"webhooks", json::parseObject(text, "webhooks settings")}};
}
const std::string kDevelopment =
    R"({"allowInsecureUrls":true,"retryScheduleSeconds":[1,1],"timeoutSeconds":2})";

json::Object endpointParams(const std::string& url, const std::string& filters = "") {
  json::Object sub = json::object();
  sub->set("eventType", "ACTIVITY_UPDATES");
  if (!filters.empty()) sub->set("filtersJson", filters);
  json::Array subs = json::array();
  subs->add(sub);
  json::Object p = json::object();
  p->set("url", url);
  p->set("name", "receiver");
  p->set("subscriptions", subs);
  return p;
}

std::string createEndpoint(TestGateway& gw, Client& as, const std::string& org,
                           const json::Object& params) {
  return resultOf(as.submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org,
                            params),
                  "createWebhookEndpointResult")
      ->getValue<std::string>("endpointId");
}

// The refusal of a submission: its HTTP error or its failure message.
std::string refusal(Client& as, const std::string& path, const std::string& type,
                    const std::string& org, const json::Object& params) {
  try {
    auto a = as.submit(path, type, org, params);
    return failureOf(a);
  } catch (const RequestError& e) {
    return e.what();
  }
}

// Checks a delivery as the official verifier does; returns its event id.
std::string verified(TestGateway& gw, const RecordedRequest& r) {
  auto jwks =
      json::parseObject(httpGet(gw.baseUrl(), "/public/v1/discovery/webhooks/jwks").body, "jwks");
  auto h = [&](const std::string& name) {
    auto it = r.headers.find(name);
    EXPECT_NE(it, r.headers.end()) << "missing header " << name;
    return it == r.headers.end() ? std::string() : it->second;
  };
  EXPECT_EQ(h("x-turnkey-signature-algorithm"), "ed25519");
  EXPECT_EQ(h("x-turnkey-signature-version"), "v1");
  EXPECT_EQ(h("x-turnkey-webhook-version"), "1");
  EXPECT_EQ(h("x-turnkey-event-type"), "ACTIVITY_UPDATES");
  std::string kid = h("x-turnkey-signature-key-id");
  std::string ts = h("x-turnkey-timestamp");
  std::string eventId = h("x-turnkey-event-id");
  EXPECT_LT(std::llabs(std::stoll(ts) - gw.gateway().nowMs()), 5 * 60 * 1000);
  std::optional<Bytes> key;
  auto keys = jwks->getArray("keys");
  for (size_t i = 0; i < keys->size(); ++i)
    if (keys->getObject(i)->getValue<std::string>("kid") == kid)
      key = base64Decode(keys->getObject(i)->getValue<std::string>("x"));
  EXPECT_TRUE(key) << "kid " << kid << " is not in the JWKS";
  std::string input = "v1.ed25519." + kid + "." + ts + "." + eventId + "." + r.body;
  auto sig = fromHex(h("x-turnkey-signature"));
  EXPECT_TRUE(key && sig && sig->size() == 64 &&
              crypto::verifyEd25519(*key, reinterpret_cast<const uint8_t*>(input.data()),
                                    input.size(), *sig))
      << "the signature does not verify";
  return eventId;
}

json::Object deliveriesOf(TestGateway& gw, const std::string& org) {
  return gw.rootClient().query("signet_list_webhook_deliveries", orgBody(org));
}

TEST_P(WebhooksTest, EndpointOperationsAndWhatTheyRefuse) {
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(R"({"maxEndpointsPerOrganization":2})"));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  std::string id = createEndpoint(gw, root, org,
                                  endpointParams("https://93.184.216.34/hooks",
                                                 R"({"statuses":["ACTIVITY_STATUS_COMPLETED"]})"));
  auto listed = root.query("list_webhook_endpoints", orgBody(org))->getArray("webhookEndpoints");
  ASSERT_EQ(listed->size(), 1u);
  auto e = listed->getObject(0);
  EXPECT_EQ(e->getValue<std::string>("endpointId"), id);
  EXPECT_EQ(e->getValue<std::string>("url"), "https://93.184.216.34/hooks");
  EXPECT_TRUE(e->getValue<bool>("isActive"));
  EXPECT_EQ(e->getArray("subscriptions")->getObject(0)->getValue<std::string>("filtersJson"),
            R"({"statuses":["ACTIVITY_STATUS_COMPLETED"]})");

  json::Object update = json::object();
  update->set("endpointId", id);
  update->set("name", "renamed");
  update->set("isActive", false);
  auto updated = resultOf(root.submit("update_webhook_endpoint",
                                      "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", org, update),
                          "updateWebhookEndpointResult")
                     ->getObject("webhookEndpoint");
  EXPECT_EQ(updated->getValue<std::string>("name"), "renamed");
  EXPECT_FALSE(updated->getValue<bool>("isActive"));

  struct Case {
    std::string url;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"http://93.184.216.34/hooks", "is not an https:// URL"},
           {"https://127.0.0.1/hooks", "127.0.0.1, which is not a public address"},
           {"https://10.1.2.3/hooks", "10.1.2.3, which is not a public address"},
           {"https://169.254.169.254/latest/meta-data", "not a public address"},
           {"https://[::1]/hooks", "not a public address"},
           {"https://[fd00::1]/hooks", "not a public address"},
           {"https://[::ffff:192.168.1.1]/hooks", "not a public address"},
           // IPv6 forms that carry an internal IPv4 address, and IPv6's own internal ranges.
           {"https://[::127.0.0.1]/hooks", "not a public address (loopback)"},
           {"https://[64:ff9b::7f00:1]/hooks", "not a public address (loopback)"},
           {"https://[64:ff9b:1::7f00:1]/hooks", "not a public address (local-use NAT64"},
           {"https://[2002:7f00:1::]/hooks", "not a public address (loopback)"},
           {"https://[2002:a9fe:a9fe::]/hooks", "not a public address (link-local)"},
           {"https://[fec0::1]/hooks", "not a public address (site-local)"},
           {"https://[fe80::1]/hooks", "not a public address (link-local)"},
           {"https://100.64.0.1/hooks", "not a public address (shared (carrier-grade NAT))"},
           {"https://255.255.255.255/hooks", "not a public address (broadcast)"},
           {"https://224.0.0.1/hooks", "not a public address (multicast)"},
           {"https://0.0.0.0/hooks", "not a public address (unspecified)"},
           {"https://localhost/hooks", "names a local or metadata host"},
           {"https://user:secret@93.184.216.34/hooks", "carries user-info"},
       }) {
    std::string m = refusal(root, "create_webhook_endpoint",
                            "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org, endpointParams(c.url));
    EXPECT_NE(m.find("parameters.url"), std::string::npos) << c.url << ": " << m;
    EXPECT_NE(m.find(c.expected), std::string::npos) << c.url << ": " << m;
  }
  auto noName = endpointParams("https://93.184.216.34/a");
  noName->set("name", "  ");
  EXPECT_NE(
      refusal(root, "create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org, noName)
          .find("parameters.name"),
      std::string::npos);
  auto balance = endpointParams("https://93.184.216.34/a");
  balance->getArray("subscriptions")->getObject(0)->set("eventType", "BALANCE_CONFIRMED_UPDATES");
  EXPECT_NE(refusal(root, "create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org,
                    balance)
                .find("\"BALANCE_CONFIRMED_UPDATES\" is not delivered by this gateway yet"),
            std::string::npos);
  auto unknownType = endpointParams("https://93.184.216.34/a");
  unknownType->getArray("subscriptions")->getObject(0)->set("eventType", "EVERYTHING");
  EXPECT_NE(refusal(root, "create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org,
                    unknownType)
                .find("\"EVERYTHING\" is not an event type"),
            std::string::npos);
  for (const auto& [filters, expected] : std::vector<std::pair<std::string, std::string>>{
           {"{not json", "is not a JSON object"},
           {R"({"colour":"red"})", "unknown key \"colour\""},
           {R"({"statuses":["DONE"]})", "\"DONE\" is not an ACTIVITY_STATUS_ value"},
           {R"({"activityTypes":["SIGN"]})", "\"SIGN\" is not an ACTIVITY_TYPE_ name"}}) {
    auto m = refusal(root, "create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org,
                     endpointParams("https://93.184.216.34/a", filters));
    EXPECT_NE(m.find("filtersJson"), std::string::npos) << filters << ": " << m;
    EXPECT_NE(m.find(expected), std::string::npos) << filters << ": " << m;
  }
  // Another organization's endpoint is not found from here.
  auto [other, otherKey] = gw.createOrganization("other");
  Client stranger = gw.clientWith(otherKey);
  json::Object del = json::object();
  del->set("endpointId", id);
  EXPECT_NE(refusal(stranger, "delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
                    other.organizationId, del)
                .find("not found in organization " + other.organizationId),
            std::string::npos);
  // The limit.
  createEndpoint(gw, root, org, endpointParams("https://93.184.216.34/second"));
  EXPECT_NE(refusal(root, "create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org,
                    endpointParams("https://93.184.216.34/third"))
                .find("maxEndpointsPerOrganization"),
            std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM webhook_endpoints"), 2);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM webhook_subscriptions"), 2);
  resultOf(
      root.submit("delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", org, del),
      "deleteWebhookEndpointResult");
  EXPECT_EQ(
      root.query("list_webhook_endpoints", orgBody(org))->getArray("webhookEndpoints")->size(), 1u);
}

TEST_P(WebhooksTest, SignedDeliveriesAndASubOrganizationsActivityReachesTheParent) {
  HttpRecorder receiver;
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(receiver.url("/hooks")));
  // The endpoint's own creation completed after it existed: it is the first event.
  auto sub = createSubOrganization(gw, "sub@example.com", "+14155550100");
  Client asSub = gw.clientWith(sub.userKey.stamper);
  json::Object policy = json::object();
  policy->set("policyName", "in the sub-organization");
  policy->set("effect", "EFFECT_ALLOW");
  policy->set("condition", "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V3'");
  policy->set("consensus", "true");
  std::string activityId =
      asSub.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", sub.id, policy)
          ->getValue<std::string>("id");
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : receiver.requests())
      if (r.body.find(activityId) != std::string::npos) return true;
    return false;
  })) << receiver.requests().size()
      << " deliveries";
  std::set<std::string> eventIds;
  bool sawSub = false;
  for (const auto& r : receiver.requests()) {
    eventIds.insert(verified(gw, r));
    EXPECT_EQ(r.path, "/hooks");
    EXPECT_EQ(r.contentType, "application/json");
    auto activity = json::parseObject(r.body, "delivery");
    EXPECT_EQ(activity->getValue<std::string>("organizationId"),
              r.headers.at("x-turnkey-organization-id"));
    if (activity->getValue<std::string>("id") == activityId) {
      sawSub = true;
      EXPECT_EQ(activity->getValue<std::string>("organizationId"), sub.id);
      EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
      EXPECT_EQ(activity->getValue<std::string>("type"), "ACTIVITY_TYPE_CREATE_POLICY_V3");
    }
  }
  EXPECT_TRUE(sawSub);
  EXPECT_EQ(eventIds.size(), receiver.requests().size()) << "an event was delivered twice";
  EXPECT_TRUE(eventually([&] {
    auto d = deliveriesOf(gw, org)->getArray("deliveries");
    for (size_t i = 0; i < d->size(); ++i)
      if (d->getObject(i)->getValue<std::string>("status") != "delivered") return false;
    return d->size() == receiver.requests().size();
  }));
  // The JWKS carries the cache headers clients expect.
  auto jwks = httpGet(gw.baseUrl(), "/public/v1/discovery/webhooks/jwks");
  EXPECT_EQ(jwks.status, 200);
  bool cached = false;
  for (const auto& [n, v] : jwks.headers)
    cached |= Poco::icompare(n, "Cache-Control") == 0 &&
              v == "public, max-age=86400, s-maxage=86400, stale-if-error=604800";
  EXPECT_TRUE(cached);
}

TEST_P(WebhooksTest, FiltersRetriesAndTerminalAnswers) {
  HttpRecorder filtered, flaky, redirecting;
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(
      gw, root, org,
      endpointParams(filtered.url("/f"), R"({"activityTypes":["ACTIVITY_TYPE_CREATE_POLICY_V3"],)"
                                         R"("statuses":["ACTIVITY_STATUS_COMPLETED"]})"));
  flaky.answerNextWith({500});
  redirecting.answerWith(302);
  json::Object policy = json::object();
  policy->set("policyName", "one");
  policy->set("effect", "EFFECT_ALLOW");
  policy->set("condition", "false");
  policy->set("consensus", "true");
  // The two other endpoints come after the policy's: they see only later events.
  std::string policyActivity =
      root.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", org, policy)
          ->getValue<std::string>("id");
  std::string flakyId = createEndpoint(gw, root, org, endpointParams(flaky.url("/x")));
  std::string redirectId = createEndpoint(gw, root, org, endpointParams(redirecting.url("/r")));
  json::Object tag = json::object();
  tag->set("userTagName", "vip");
  tag->set("userIds", json::array());
  std::string tagActivity =
      root.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, tag)
          ->getValue<std::string>("id");

  // Only the policy's completion passes the filter.
  ASSERT_TRUE(filtered.waitForRequests(1));
  // The flaky endpoint's first delivery (of its own creation) got a 500: it is tried again
  // about a second later, with the same event id and a fresh signature.
  ASSERT_TRUE(flaky.waitForRequests(1));
  std::string firstEvent = verified(gw, flaky.requests()[0]);
  ASSERT_TRUE(eventually([&] {
    auto all = flaky.requests();
    for (size_t i = 1; i < all.size(); ++i)
      if (all[i].headers.at("x-turnkey-event-id") == firstEvent) return true;
    return false;
  }));
  auto flakyRequests = flaky.requests();
  for (size_t i = 1; i < flakyRequests.size(); ++i) {
    const auto& again = flakyRequests[i];
    if (again.headers.at("x-turnkey-event-id") != firstEvent) continue;
    EXPECT_EQ(verified(gw, again), firstEvent);
    EXPECT_NE(again.headers.at("x-turnkey-signature"),
              flakyRequests[0].headers.at("x-turnkey-signature"));
    EXPECT_EQ(again.body, flakyRequests[0].body);
  }
  // The redirecting endpoint answers every event once, and nothing is tried again.
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : redirecting.requests())
      if (r.body.find(tagActivity) != std::string::npos) return true;
    return false;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  std::set<std::string> seen;
  for (const auto& r : redirecting.requests())
    EXPECT_TRUE(seen.insert(verified(gw, r)).second) << "a 302 was retried";
  EXPECT_EQ(filtered.requests().size(), 1u);
  EXPECT_NE(filtered.requests()[0].body.find(policyActivity), std::string::npos);
  // The stored deliveries say the same, and each expected one is there: one of the flaky
  // endpoint's first event, delivered on its second attempt, and one per event the redirecting
  // endpoint heard, failed on its first.
  auto list = deliveriesOf(gw, org)->getArray("deliveries");
  size_t flakyFirst = 0, redirected = 0;
  std::set<std::string> redirectedEvents;
  for (size_t i = 0; i < list->size(); ++i) {
    auto d = list->getObject(i);
    if (d->getValue<std::string>("endpointId") == flakyId &&
        d->getValue<std::string>("eventId") == firstEvent) {
      ++flakyFirst;
      EXPECT_EQ(d->getValue<std::string>("status"), "delivered");
      EXPECT_EQ(d->getValue<int>("attempts"), 2);
    }
    if (d->getValue<std::string>("endpointId") == redirectId) {
      ++redirected;
      redirectedEvents.insert(d->getValue<std::string>("eventId"));
      EXPECT_EQ(d->getValue<std::string>("status"), "failed");
      EXPECT_EQ(d->getValue<int>("attempts"), 1);
      EXPECT_EQ(d->getValue<int>("lastHttpStatus"), 302);
    }
  }
  EXPECT_EQ(flakyFirst, 1u) << json::stringify(list);
  EXPECT_EQ(redirected, seen.size()) << json::stringify(list);
  EXPECT_EQ(redirectedEvents, seen);
}

const char* kTagsOnly = R"({"activityTypes":["ACTIVITY_TYPE_CREATE_USER_TAG"]})";

std::string createTag(Client& as, const std::string& org, const std::string& name) {
  json::Object tag = json::object();
  tag->set("userTagName", name);
  tag->set("userIds", json::array());
  return as.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, tag)
      ->getValue<std::string>("id");
}

int64_t storeCount(TestGateway& gw, const std::string& sql) {
  int64_t n = -1;
  gw.write([&](Db& db) { n = db.queryOne(sql)->i64("n"); });
  return n;
}

// A stuck endpoint gets one attempt at a time, and another endpoint's deliveries go on
// meanwhile.
TEST_P(WebhooksTest, AStuckEndpointHoldsUpNeitherTheApiNorOtherEndpoints) {
  HttpRecorder stuck, healthy;
  stuck.holdAnswers();
  TestGateway gw(GetParam(), {"webhooks"}, {},
                 settings(R"({"allowInsecureUrls":true,"timeoutSeconds":20,
                              "retryScheduleSeconds":[1]})"));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(stuck.url("/stuck")));
  createEndpoint(gw, root, org, endpointParams(healthy.url("/healthy")));
  std::vector<std::string> tags;
  for (int i = 0; i < 10; ++i) {
    auto start = std::chrono::steady_clock::now();
    tags.push_back(createTag(root, org, "t" + std::to_string(i)));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }
  // The healthy endpoint hears about every tag while the stuck one holds its one attempt.
  ASSERT_TRUE(eventually([&] {
    size_t seen = 0;
    for (const auto& id : tags)
      for (const auto& r : healthy.requests()) seen += r.body.find(id) != std::string::npos;
    return seen == tags.size();
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(stuck.requests().size(), 1u) << "more than one attempt at once to one endpoint";
  stuck.release();
  // Released, it gets the rest.
  EXPECT_TRUE(eventually([&] { return stuck.requests().size() >= healthy.requests().size(); }));
}

// A receiver that answers a byte at a time: each attempt ends at timeoutSeconds, however long
// the answer would take, and no second attempt to the endpoint starts while one is open.
TEST_P(WebhooksTest, ATricklingReceiverIsCutAtTheTimeoutAndNeverGetsTwoAttemptsAtOnce) {
  using Clock = std::chrono::steady_clock;
  std::mutex mutex;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> connections;  // opened, closed
  TcpPeer trickling([&](int fd, const std::atomic<bool>& stopping) {
    auto opened = Clock::now();
    TcpPeer::readHead(fd);
    TcpPeer::sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
    // A byte every 200 ms, 20 s for the whole answer; between bytes, reading the socket (the
    // request's body, then nothing) sees the gateway's close the moment it comes.
    bool closed = false;
    for (int i = 0; i < 100 && !stopping && !closed && ::send(fd, "x", 1, MSG_NOSIGNAL) == 1; ++i) {
      auto byteDue = Clock::now() + std::chrono::milliseconds(200);
      for (auto now = Clock::now(); !closed && now < byteDue; now = Clock::now()) {
        pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(byteDue - now);
        if (::poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0) break;
        char buffer[4096];
        closed = ::recv(fd, buffer, sizeof buffer, 0) <= 0;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    connections.emplace_back(opened, Clock::now());
  });
  TestGateway gw(GetParam(), {"webhooks"}, {},
                 settings(R"({"allowInsecureUrls":true,"timeoutSeconds":2,
                              "retryScheduleSeconds":[1]})"));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(trickling.url("http", "/hooks"), kTagsOnly));
  createTag(root, org, "first");
  createTag(root, org, "second");
  // Two deliveries, two attempts each (the first and one retry), every one cut off: dead.
  ASSERT_TRUE(eventually(
      [&] {
        auto d = deliveriesOf(gw, org)->getArray("deliveries");
        if (d->size() != 2) return false;
        for (size_t i = 0; i < d->size(); ++i)
          if (d->getObject(i)->getValue<std::string>("status") != "dead") return false;
        return true;
      },
      40000))
      << json::stringify(deliveriesOf(gw, org));
  auto d = deliveriesOf(gw, org)->getArray("deliveries");
  for (size_t i = 0; i < d->size(); ++i) {
    EXPECT_EQ(d->getObject(i)->getValue<int>("attempts"), 2);
    EXPECT_NE(d->getObject(i)->getValue<std::string>("lastError").find("no answer in time"),
              std::string::npos)
        << json::stringify(d->getObject(i));
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(mutex);
    return connections.size() == 4;
  }));
  EXPECT_EQ(trickling.accepted(), 4);
  std::lock_guard<std::mutex> lock(mutex);
  std::sort(connections.begin(), connections.end());
  for (size_t i = 0; i < connections.size(); ++i) {
    auto [opened, closed] = connections[i];
    // The trickle alone would take 20 s; 2 s and the slack of a loaded machine.
    EXPECT_LT(closed - opened, std::chrono::seconds(8));
    // The next attempt starts after this one ended (the peer sees the close within a few
    // milliseconds of it: the margin).
    if (i + 1 < connections.size()) {
      EXPECT_GT(connections[i + 1].first, closed - std::chrono::milliseconds(50))
          << "attempts " << i << " and " << i + 1 << " were open at once";
    }
  }
}

// maxBacklogPerEndpoint: past it the pending delivery due soonest is dropped, said so in the
// listing and counted on the endpoint and in the metrics; the one in flight is not it. An
// event's body is stored once, and gone once no delivery waits for it.
TEST_P(WebhooksTest, PastItsBacklogLimitAnEndpointDropsTheOldestAndCountsIt) {
  HttpRecorder stuck;
  stuck.holdAnswers();
  TestGateway gw(GetParam(), {"webhooks"}, {},
                 settings(R"({"allowInsecureUrls":true,"timeoutSeconds":20,
                              "retryScheduleSeconds":[1],"maxBacklogPerEndpoint":3})"));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  std::string endpoint =
      createEndpoint(gw, root, org, endpointParams(stuck.url("/hooks"), kTagsOnly));
  std::vector<std::string> tags = {createTag(root, org, "t0")};
  ASSERT_TRUE(stuck.waitForRequests(1));  // t0 is in flight
  for (int i = 1; i < 6; ++i) tags.push_back(createTag(root, org, "t" + std::to_string(i)));
  // t0 in flight, then t1..t5 against a limit of 3: t1, t2 and t3 made room for t3, t4 and t5.
  // (Deliveries are queued after their activity's commit: wait for the sixth.)
  ASSERT_TRUE(
      eventually([&] { return deliveriesOf(gw, org)->getArray("deliveries")->size() == 6; }));
  auto listing = deliveriesOf(gw, org);
  std::map<std::string, std::string> statusOf;  // event id -> status
  auto d = listing->getArray("deliveries");
  ASSERT_EQ(d->size(), 6u) << json::stringify(listing);
  size_t dropped = 0;
  for (size_t i = 0; i < d->size(); ++i) {
    auto one = d->getObject(i);
    if (one->getValue<std::string>("status") != "dropped") continue;
    ++dropped;
    EXPECT_NE(one->getValue<std::string>("lastError").find("maxBacklogPerEndpoint"),
              std::string::npos);
  }
  EXPECT_EQ(dropped, 3u) << json::stringify(listing);
  auto summary = listing->getArray("endpoints")->getObject(0);
  EXPECT_EQ(summary->getValue<std::string>("endpointId"), endpoint);
  EXPECT_EQ(summary->getValue<int>("backlog"), 3);
  EXPECT_EQ(summary->getValue<int>("dropped"), 3);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 3);
  auto metrics = httpGet(gw.baseUrl(), "/metrics").body;
  EXPECT_NE(metrics.find("\nsignet_webhooks_dropped_deliveries 3\n"), std::string::npos);
  EXPECT_NE(metrics.find("\nsignet_webhooks_pending_deliveries 3\n"), std::string::npos);

  stuck.release();
  ASSERT_TRUE(eventually([&] {
    return deliveriesOf(gw, org)->getArray("endpoints")->getObject(0)->getValue<int>("backlog") ==
           0;
  }));
  std::set<std::string> heard;
  for (const auto& r : stuck.requests())
    for (size_t i = 0; i < tags.size(); ++i)
      if (r.body.find(tags[i]) != std::string::npos) heard.insert("t" + std::to_string(i));
  EXPECT_EQ(heard, (std::set<std::string>{"t0", "t4", "t5"}));
  EXPECT_EQ(stuck.requests().size(), 3u);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 0);
  EXPECT_FALSE(stuck.heldTooLong());
}

// An event two endpoints subscribe to: one body in the store for two deliveries, removed when
// both are made.
TEST_P(WebhooksTest, AnEventsBodyIsStoredOnceForAllItsEndpoints) {
  HttpRecorder receiver;
  receiver.holdAnswers();
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(receiver.url("/one"), kTagsOnly));
  createEndpoint(gw, root, org, endpointParams(receiver.url("/two"), kTagsOnly));
  createTag(root, org, "shared");
  ASSERT_TRUE(receiver.waitForRequests(2));
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_deliveries"), 2);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 1);
  receiver.release();
  ASSERT_TRUE(eventually(
      [&] { return storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads") == 0; }));
  EXPECT_EQ(
      storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'"), 2);
  auto r = receiver.requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].body, r[1].body);
}

TEST_P(WebhooksTest, WithNothingDueTheDelivererLooksWithoutWriting) {
  HttpRecorder receiver;
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(receiver.url("/done"), kTagsOnly));
  createTag(root, org, "delivered, then nothing due");
  ASSERT_TRUE(eventually([&] {
    return storeCount(gw,
                      "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = "
                      "'delivered'") == 1;
  }));
  // The delivery's record and the lease handed back are one transaction, seen above; the
  // deliverer then looks for due deliveries every second. Over two and a half seconds of that,
  // the store commits nothing: each look is a read. (The log's checkpoints, the one other
  // writer on a timer here, come at the start and every 60 s.)
  const auto before = gw.gateway().database().commitStats().batches;
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(gw.gateway().database().commitStats().batches, before);

  // And what becomes due is still found and delivered.
  createTag(root, org, "due again");
  EXPECT_TRUE(receiver.waitForRequests(2));
}

TEST_P(WebhooksTest, AnEndpointThatNeverAnswersWellIsDeadAfterTheSchedule) {
  HttpRecorder down;
  down.answerWith(503);
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  createEndpoint(gw, root, org, endpointParams(down.url("/down")));
  enableFeature(gw, "FEATURE_NAME_WEBHOOK", down.url("/legacy"));
  // Three attempts (the first and two retries), then dead.
  ASSERT_TRUE(eventually([&] {
    auto d = deliveriesOf(gw, org)->getArray("deliveries");
    return d->size() > 0 && d->getObject(0)->getValue<std::string>("status") == "dead";
  }));
  auto d = deliveriesOf(gw, org)->getArray("deliveries")->getObject(0);
  EXPECT_EQ(d->getValue<int>("attempts"), 3);
  EXPECT_EQ(d->getValue<std::string>("lastError"), "HTTP 503");
  // The legacy feature's URL gets the later activities too.
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : down.requests())
      if (r.path == "/legacy") return true;
    return false;
  }));
}

// Deleting an endpoint takes the bodies only it waited for: one another endpoint still waits
// for stays until that one goes too.
TEST_P(WebhooksTest, DeletingAnEndpointForgetsTheBodiesOnlyItWaitedFor) {
  HttpRecorder receiver;
  receiver.holdAnswers();
  TestGateway gw(GetParam(), {"webhooks"}, {}, settings(kDevelopment));
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  std::vector<std::string> endpoints;
  for (const char* path : {"/one", "/two"})
    endpoints.push_back(
        createEndpoint(gw, root, org, endpointParams(receiver.url(path), kTagsOnly)));
  createTag(root, org, "shared");
  ASSERT_TRUE(receiver.waitForRequests(2));
  ASSERT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 1);
  auto remove = [&](const std::string& id) {
    json::Object p = json::object();
    p->set("endpointId", id);
    resultOf(
        root.submit("delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", org, p),
        "deleteWebhookEndpointResult");
  };
  remove(endpoints[0]);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 1);
  remove(endpoints[1]);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_payloads"), 0);
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM webhook_deliveries"), 0);
  receiver.release();
}

// Migration 2 on a store written by version 1: each pending event's body moves to one payload
// row, finished events' bodies go, and each endpoint's backlog counts its pending deliveries.
TEST_P(WebhooksTest, Migration2KeepsEveryPendingBodyOnceAndCountsEachBacklog) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-webhooks-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  {
    ScratchDatabase scratch(GetParam(), dir);
    Database db(scratch.config());
    auto all = webhooks::migrations();
    ASSERT_EQ(all.size(), 2u);
    db.migrate("webhooks", {all[0]});
    db.transaction([](Db& db) {
      for (const char* e : {"e1", "e2"})
        db.exec(
            "INSERT INTO webhook_endpoints (id, organization_id, name, url, is_active, legacy, "
            "created_at_ms, updated_at_ms) VALUES (?, 'o', 'n', 'https://example.com', 1, 0, 1, 1)",
            {std::string(e)});
      struct Old {
        const char *id, *endpoint, *event, *body, *status;
      };
      for (Old d :
           {Old{"d1", "e1", "A", "body A", "pending"}, Old{"d2", "e2", "A", "body A", "pending"},
            Old{"d3", "e1", "B", "body B", "delivered"}, Old{"d4", "e1", "C", "body C", "pending"}})
        db.exec(
            "INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, "
            "event_type, body, status, attempts, next_attempt_at_ms, claimed_until_ms, "
            "last_http_status, last_error, created_at_ms, updated_at_ms) VALUES (?, ?, 'o', ?, "
            "'ACTIVITY_UPDATES', ?, ?, 0, 0, 0, 0, '', 1, 1)",
            {std::string(d.id), std::string(d.endpoint), std::string(d.event), std::string(d.body),
             std::string(d.status)});
    });
    db.migrate("webhooks", all);
    db.read([](Db& db) {
      std::map<std::string, std::string> payloads;
      for (const auto& r : db.query("SELECT event_id, body FROM webhook_payloads"))
        payloads[r.str("event_id")] = r.str("body");
      EXPECT_EQ(payloads, (std::map<std::string, std::string>{{"A", "body A"}, {"C", "body C"}}));
      std::map<std::string, int64_t> backlog;
      for (const auto& r : db.query("SELECT id, backlog, dropped, sending_until_ms FROM "
                                    "webhook_endpoints")) {
        backlog[r.str("id")] = r.i64("backlog");
        EXPECT_EQ(r.i64("dropped"), 0);
        EXPECT_EQ(r.i64("sending_until_ms"), 0);
      }
      EXPECT_EQ(backlog, (std::map<std::string, int64_t>{{"e1", 2}, {"e2", 1}}));
      EXPECT_EQ(db.query("SELECT id FROM webhook_deliveries").size(), 4u);
    });
  }
  std::filesystem::remove_all(dir);
}

// Counts the rows written to the core's outbox by organization, drained or not: a trigger sees
// each one, although the dispatcher takes it off the outbox as soon as it commits.
void countOutboxWrites(TestGateway& gw, Backend backend) {
  gw.write([&](Db& db) {
    db.exec("CREATE TABLE outbox_writes (organization_id TEXT NOT NULL)");
    if (backend == Backend::kPostgres) {
      db.exec(
          "CREATE FUNCTION count_outbox_write() RETURNS trigger AS $$ BEGIN INSERT INTO "
          "outbox_writes VALUES (NEW.organization_id); RETURN NEW; END $$ LANGUAGE plpgsql");
      db.exec(
          "CREATE TRIGGER outbox_written AFTER INSERT ON activity_events FOR EACH ROW EXECUTE "
          "FUNCTION count_outbox_write()");
    } else {
      db.exec(
          "CREATE TRIGGER outbox_written AFTER INSERT ON activity_events BEGIN INSERT INTO "
          "outbox_writes VALUES (NEW.organization_id); END");
    }
  });
}

TEST_P(WebhooksTest, AnOrganizationWithoutAnActiveSubscriptionWritesNothingToTheOutbox) {
  HttpRecorder receiver;
  TestGateway gw(GetParam(), {"webhooks", "signing"}, {}, settings(kDevelopment));
  countOutboxWrites(gw, GetParam());
  const std::string& org = gw.root().organizationId;
  Client root = gw.rootClient();
  auto writesOf = [&](const std::string& organizationId) {
    return storeCount(gw, "SELECT COUNT(*) AS n FROM outbox_writes WHERE organization_id = '" +
                              organizationId + "'");
  };
  auto delivered = [&](const std::string& path, const std::string& activityId) {
    return eventually([&] {
      for (const auto& r : receiver.requests())
        if (r.path == path && r.body.find(activityId) != std::string::npos) return true;
      return false;
    });
  };
  // No endpoint anywhere: the plugin is enabled, and a root organization's activities and its
  // sub-organization's write nothing for it.
  createTag(root, org, "unheard");
  auto sub = createSubOrganization(gw, "sub@example.com", "+14155550100");
  Client asSub = gw.clientWith(sub.userKey.stamper);
  createTag(asSub, sub.id, "unheard either");
  // An endpoint that subscribes to nothing wants nothing either.
  json::Object bare = endpointParams(receiver.url("/bare"));
  bare->set("subscriptions", json::array());
  createEndpoint(gw, root, org, bare);
  createTag(root, org, "unheard by the bare endpoint");
  EXPECT_EQ(storeCount(gw, "SELECT COUNT(*) AS n FROM outbox_writes"), 0);

  // Another organization's endpoint: its events are written, from the endpoint's own creation
  // on (the interest sees the transaction's own writes), and still none of the first's.
  auto other = gw.createOrganization("other");
  const std::string otherId = other.first.organizationId;
  Client asOther = gw.clientWith(other.second);
  std::string endpoint =
      createEndpoint(gw, asOther, otherId, endpointParams(receiver.url("/other")));
  EXPECT_EQ(writesOf(otherId), 1);
  ASSERT_TRUE(delivered("/other", createTag(asOther, otherId, "heard")));
  createTag(root, org, "still unheard");
  createTag(asSub, sub.id, "still unheard either");
  EXPECT_EQ(writesOf(org), 0);
  EXPECT_EQ(writesOf(sub.id), 0);

  // A parent's endpoint takes its sub-organization's events: one decided in the write batch, and
  // a signature decided on its snapshot, whose event names the parent the snapshot read.
  createEndpoint(gw, root, org, endpointParams(receiver.url("/parent")));
  ASSERT_TRUE(delivered("/parent", createTag(asSub, sub.id, "heard through the parent")));
  EXPECT_EQ(writesOf(sub.id), 1);
  std::string address = newEthereumAddress(asSub, sub.id, "sub's wallet");
  auto signature = asSub.submit(
      "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", sub.id,
      signParams(address, "00", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"));
  ASSERT_EQ(signature->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  ASSERT_TRUE(delivered("/parent", signature->getValue<std::string>("id")));
  EXPECT_EQ(writesOf(sub.id), 3);  // the tag, the wallet, the signature

  // An endpoint made inactive is no interest: from its update on, nothing more is written.
  json::Object update = json::object();
  update->set("endpointId", endpoint);
  update->set("isActive", false);
  resultOf(asOther.submit("update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
                          otherId, update),
           "updateWebhookEndpointResult");
  int64_t before = writesOf(otherId);
  createTag(asOther, otherId, "unheard again");
  EXPECT_EQ(writesOf(otherId), before);
}

}  // namespace
}  // namespace signet::test
