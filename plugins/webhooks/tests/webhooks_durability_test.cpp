// Deliveries across process boundaries: the signing key rotated with `signet webhooks
// rotate-key` while a gateway serves, `signet webhooks deliveries`, a gateway killed with
// SIGKILL while a thousand deliveries wait (every event arrives after the restart), killed again
// half-way through draining a backlog (the rest arrive, at most one twice), and two
// gateways on one PostgreSQL store (every event delivered once, by one of them).
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "gateway.hpp"
#include "server/http_server.hpp"
#include "signet/encoding.hpp"
#include "support/http_recorder.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A data directory with the webhooks plugin, plain-http receivers allowed, and a root
// organization whose key the test holds.
struct DataDir {
  fs::path dir = fs::temp_directory_path() / ("signet-webhooks-" + crypto::uuidV4());
  std::string org;
  std::shared_ptr<ApiKeyStamper> key;

  explicit DataDir(const std::string& schedule) {
    EXPECT_EQ(runSignet({"init", "--data-dir", dir.string(), "--plugins", "webhooks"}).exitCode, 0);
    auto config = json::parseObject(readFile(dir / "signet.json"), "signet.json");
    config->getObject("plugins")->set("settings",
                                      json::parseObject(R"({"webhooks":{"allowInsecureUrls":true,
            "retryScheduleSeconds":)" + schedule + R"(,"timeoutSeconds":2}})",
                                                        "settings"));
    // A thousand activities in a few seconds: past the default per-organization rate.
    config->getObject("limits")->getObject("rateLimit")->set("perOrganizationPerSecond", 100000);
    config->getObject("limits")->getObject("rateLimit")->set("burst", 100000);
    std::ofstream(dir / "signet.json") << json::stringify(config);
    auto created = runSignet(
        {"org", "create", "--data-dir", dir.string(), "--name", "Hooks", "--user-name", "owner"});
    EXPECT_EQ(created.exitCode, 0) << created.err;
    org = json::parseObject(created.out, "org")->getValue<std::string>("organizationId");
    auto credentials = json::parseObject(readFile(dir / (org + ".api-key.json")), "credentials");
    key = ApiKeyStamper::fromHex(credentials->getValue<std::string>("apiPrivateKey"));
  }
  ~DataDir() { fs::remove_all(dir); }
};

std::string createEndpoint(Client& client, const std::string& org, const std::string& url) {
  auto p = json::parseObject(R"({"name":"receiver","subscriptions":[{"eventType":"ACTIVITY_UPDATES",
      "filtersJson":"{\"activityTypes\":[\"ACTIVITY_TYPE_CREATE_USER_TAG\"]}"}]})",
                             "endpoint");
  p->set("url", url);
  auto a =
      client.submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", org, p);
  return a->getObject("result")
      ->getObject("createWebhookEndpointResult")
      ->getValue<std::string>("endpointId");
}

std::string createTag(Client& client, const std::string& org, const std::string& name) {
  json::Object p = json::object();
  p->set("userTagName", name);
  p->set("userIds", json::array());
  return client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, p)
      ->getValue<std::string>("id");
}

std::string activityIdOf(const RecordedRequest& r) {
  return json::parseObject(r.body, "delivery")->getValue<std::string>("id");
}

// A gateway on `data` with an endpoint at the receiver, `count` activities made through it, then
// killed with SIGKILL. Returns the activities' ids; `heard` is what the receiver had by then.
std::set<std::string> activitiesThenKill9(const DataDir& data, const HttpRecorder& receiver,
                                          int count, size_t& heard) {
  std::set<std::string> activities;
  ServeProcess server(data.dir.string());
  Client client(server.baseUrl(), data.key);
  createEndpoint(client, data.org, receiver.url("/hooks"));
  for (int i = 0; i < count; ++i)
    activities.insert(createTag(client, data.org, "t" + std::to_string(i)));
  server.kill();
  heard = receiver.requests().size();
  return activities;
}

// Every delivery is of one of the activities, each activity was heard, and every repeat of one
// carries the same event id.
void expectEachActivityHeardAsOneEvent(const HttpRecorder& receiver,
                                       const std::set<std::string>& activities) {
  std::map<std::string, std::string> eventOf;  // activity -> event id
  for (const auto& r : receiver.requests()) {
    std::string activity = activityIdOf(r);
    EXPECT_TRUE(activities.count(activity));
    auto [it, fresh] = eventOf.emplace(activity, r.headers.at("x-turnkey-event-id"));
    EXPECT_EQ(it->second, r.headers.at("x-turnkey-event-id")) << "two events for " << activity;
  }
  EXPECT_EQ(eventOf.size(), activities.size());
}

TEST(WebhooksProcessTest, KeyRotationFromTheCliWhileServingKeepsTheOldKeyPublished) {
  HttpRecorder receiver;
  DataDir data("[1,1]");
  ServeProcess server(data.dir.string());
  Client client(server.baseUrl(), data.key);
  createEndpoint(client, data.org, receiver.url("/hooks"));
  createTag(client, data.org, "before");
  ASSERT_TRUE(receiver.waitForRequests(1));
  std::string oldKid = receiver.requests()[0].headers.at("x-turnkey-signature-key-id");

  auto rotated = runSignet({"webhooks", "rotate-key", "--data-dir", data.dir.string()});
  ASSERT_EQ(rotated.exitCode, 0) << rotated.err;
  std::string newKid = json::parseObject(rotated.out, "rotate")->getValue<std::string>("kid");
  EXPECT_NE(newKid, oldKid);
  createTag(client, data.org, "after");
  ASSERT_TRUE(receiver.waitForRequests(2));
  EXPECT_EQ(receiver.requests()[1].headers.at("x-turnkey-signature-key-id"), newKid);
  // Both keys are published: the old one until its deliveries can no longer be retried.
  auto jwks = json::parseObject(
      httpGet(server.baseUrl(), "/public/v1/discovery/webhooks/jwks").body, "jwks");
  std::set<std::string> kids;
  for (size_t i = 0; i < jwks->getArray("keys")->size(); ++i)
    kids.insert(jwks->getArray("keys")->getObject(i)->getValue<std::string>("kid"));
  EXPECT_EQ(kids, (std::set<std::string>{oldKid, newKid}));

  auto listed = runSignet(
      {"webhooks", "deliveries", "--data-dir", data.dir.string(), "--organization", data.org});
  ASSERT_EQ(listed.exitCode, 0) << listed.err;
  auto deliveries = json::parseObject(listed.out, "deliveries")->getArray("deliveries");
  ASSERT_EQ(deliveries->size(), 2u);
  EXPECT_EQ(deliveries->getObject(0)->getValue<std::string>("status"), "delivered");
  auto missing = runSignet({"webhooks", "deliveries", "--data-dir", data.dir.string()});
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("--organization is required"), std::string::npos) << missing.err;
}

TEST(WebhooksProcessTest, AThousandPendingDeliveriesSurviveKill9) {
  HttpRecorder receiver;
  receiver.answerWith(503);  // everything waits for a retry
  DataDir data("[2,2,2,2,2,2,2,2,2,2]");
  size_t answeredBefore = 0;
  auto activities = activitiesThenKill9(data, receiver, 1000, answeredBefore);
  receiver.answerWith(200);
  ServeProcess again(data.dir.string());
  // Every activity's event arrives after the restart; a repeat carries the same event id.
  ASSERT_TRUE(eventually(
      [&] {
        auto all = receiver.requests();
        std::set<std::string> delivered;
        for (size_t i = answeredBefore; i < all.size(); ++i) delivered.insert(activityIdOf(all[i]));
        return delivered.size() >= activities.size();
      },
      60000))
      << "answered before the kill: " << answeredBefore;
  expectEachActivityHeardAsOneEvent(receiver, activities);
}

// A receiver that takes 20 ms a delivery, a backlog of 400 and the gateway killed half-way:
// after the restart the rest arrive, and only the one delivery that was in flight when the
// gateway died (one endpoint, one attempt at a time) may arrive twice.
TEST(WebhooksProcessTest, AGatewayKilledMidDrainFinishesTheBacklogAfterItsRestart) {
  HttpRecorder receiver;
  receiver.answerAfterMs(20);
  DataDir data("[2,2,2,2,2,2,2,2,2,2]");
  size_t heardBeforeKill = 0;
  auto activities = activitiesThenKill9(data, receiver, 400, heardBeforeKill);
  ASSERT_GT(heardBeforeKill, 0u);
  ASSERT_LT(heardBeforeKill, activities.size()) << "the backlog drained before the kill";
  ServeProcess again(data.dir.string());
  ASSERT_TRUE(eventually(
      [&] {
        std::set<std::string> heard;
        for (const auto& r : receiver.requests()) heard.insert(activityIdOf(r));
        return heard.size() >= activities.size();
      },
      60000));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // any repeat would be in
  expectEachActivityHeardAsOneEvent(receiver, activities);
  EXPECT_LE(receiver.requests().size(), activities.size() + 1)
      << "heard before the kill: " << heardBeforeKill;
}

TEST(WebhooksProcessTest, TwoGatewaysOnOnePostgresDeliverEachEventOnce) {
  SIGNET_NEED_POSTGRES();
  HttpRecorder receiver;
  TestGateway first(Backend::kPostgres, {"webhooks"}, {},
                    {{"webhooks", json::parseObject(R"({"allowInsecureUrls":true,
                        "retryScheduleSeconds":[1,1],"timeoutSeconds":2})",
                                                    "settings")}});
  Gateway second(first.gateway().config());
  HttpServer secondServer(second, "127.0.0.1:0");
  secondServer.start();
  second.startBackground();
  Client one = first.rootClient();
  Client two("http://127.0.0.1:" + std::to_string(secondServer.port()), first.rootStamper());
  const std::string& org = first.root().organizationId;
  createEndpoint(one, org, receiver.url("/hooks"));
  std::set<std::string> activities;
  std::vector<std::thread> writers;
  std::mutex mutex;
  for (int w = 0; w < 2; ++w)
    writers.emplace_back([&, w] {
      Client& c = w == 0 ? one : two;
      for (int i = 0; i < 100; ++i) {
        std::string id = createTag(c, org, "g" + std::to_string(w) + "-" + std::to_string(i));
        std::lock_guard<std::mutex> lock(mutex);
        activities.insert(id);
      }
    });
  for (auto& t : writers) t.join();
  ASSERT_TRUE(eventually([&] { return receiver.requests().size() >= activities.size(); }, 30000));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // any duplicate would be in
  std::map<std::string, int> perEvent;
  for (const auto& r : receiver.requests()) {
    EXPECT_TRUE(activities.count(activityIdOf(r)));
    ++perEvent[r.headers.at("x-turnkey-event-id")];
  }
  EXPECT_EQ(perEvent.size(), activities.size());
  for (const auto& [event, times] : perEvent) EXPECT_EQ(times, 1) << event;
  second.stopBackground();
  secondServer.stop();
}

}  // namespace
}  // namespace signet::test
