// Staged rollout: memo's ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2 ships as canary 0 % and is walked
// by the operator's `signet rollout set` through canary 10 % (plus one listed organization),
// canary 100 %, general, deprecated, retired and disabled, against running gateways with 50
// organizations and no restart. At each step every organization's outcome is checked, with the
// response headers; on PostgreSQL two gateways share the store and both must follow.
#include <fstream>
#include <functional>
#include <thread>

#include "activity/rollout.hpp"
#include "server/http_server.hpp"
#include "support/auth_fixtures.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class RolloutTest : public BackendTest {};
SIGNET_BACKEND_SUITE(RolloutTest);

const std::string kV1 = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO";
const std::string kV2 = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2";

struct Tenant {
  std::string organizationId;
  std::shared_ptr<Stamper> stamper;
};

struct Outcome {
  bool admitted = false;
  std::string message;  // the refusal
  std::map<std::string, std::string> headers;
};

Outcome submitV2(const std::string& baseUrl, const Tenant& t) {
  json::Object p = json::object();
  p->set("title", "release notes");
  p->set("text", "memo " + crypto::uuidV4());
  auto r =
      Client(baseUrl, t.stamper)
          .post("/public/v1/submit/signet_create_memo", activityBody(kV2, t.organizationId, p));
  Outcome o;
  o.admitted = r.status == 200;
  if (!o.admitted)
    o.message = json::parseObject(r.body, "refusal")->getValue<std::string>("message");
  for (const auto& [name, value] : r.headers) o.headers[name] = value;
  return o;
}

// Submits as `probe` on `url` until `reached` holds for the outcome, for at most two seconds
// (the promise a change keeps); returns the last outcome.
Outcome eventually(const std::string& url, const Tenant& probe,
                   const std::function<bool(const Outcome&)>& reached) {
  Outcome o;
  for (int i = 0; i < 20; ++i) {
    o = submitV2(url, probe);
    if (reached(o)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return o;
}

// The config the operator's commands use: the test gateway's store, key and plugins.
std::string operatorConfig(TestGateway& gw) {
  const Config& c = gw.gateway().config();
  json::Object database = json::object();
  if (c.database.backend == Backend::kPostgres) {
    database->set("driver", "postgresql");
    database->set("connection", c.database.connection);
  } else {
    database->set("driver", "sqlite");
    database->set("path", c.database.connection);
  }
  json::Object plugins = json::object();
  plugins->set("directory", c.pluginDir.string());
  plugins->set("enabled", json::stringArray({"memo"}));
  json::Object config = json::object();
  config->set("database", database);
  config->set("masterKeyFile", c.masterKeyFile.string());
  config->set("plugins", plugins);
  auto file = (gw.dataDir() / "operator.json").string();
  std::ofstream(file) << json::stringify(config);
  return file;
}

TEST_P(RolloutTest, OneVersionWalksFromCanaryToRetiredWithoutARestart) {
  TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
  std::vector<std::string> gateways = {gw.baseUrl()};
  // On PostgreSQL, a second gateway on the same store: the change must reach it too.
  std::unique_ptr<Gateway> second;
  std::unique_ptr<HttpServer> secondServer;
  if (GetParam() == Backend::kPostgres) {
    second = std::make_unique<Gateway>(gw.gateway().config());
    secondServer = std::make_unique<HttpServer>(*second, "127.0.0.1:0");
    secondServer->start();
    gateways.push_back("http://127.0.0.1:" + std::to_string(secondServer->port()));
  }

  std::vector<Tenant> tenants;
  for (int i = 0; i < 50; ++i) {
    auto [org, stamper] = gw.createOrganization("Tenant " + std::to_string(i));
    tenants.push_back({org.organizationId, stamper});
  }
  const Tenant& listed = tenants[0];
  // A sub-organization follows its parent: one under the listed organization's peer, the test
  // gateway's root organization, which is listed below too.
  auto sub = createSubOrganization(gw, "alice@example.com", "+15555550100");
  Tenant child{sub.id, sub.userKey.stamper};
  Tenant root{gw.root().organizationId, gw.rootStamper()};

  std::string config = operatorConfig(gw);
  auto set = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"rollout", "set"});
    args.insert(args.end(), {"--data-dir", gw.dataDir().string(), "--config", config});
    auto r = runSignet(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
  };
  // Waits (at most two seconds, the promise) until `probe` is admitted or refused as expected
  // on every gateway.
  auto settle = [&](const Tenant& probe, bool admitted) {
    for (const auto& url : gateways)
      ASSERT_EQ(
          eventually(url, probe, [&](const Outcome& o) { return o.admitted == admitted; }).admitted,
          admitted)
          << "the change did not reach " << url << " within two seconds";
  };
  auto expectEvery = [&](auto admitted, const std::string& step) {
    for (const auto& url : gateways)
      for (const auto& t : tenants) {
        Outcome o = submitV2(url, t);
        EXPECT_EQ(o.admitted, admitted(t))
            << step << ", organization " << t.organizationId << " (bucket "
            << rolloutBucket(t.organizationId) << ") on " << url << ": " << o.message;
      }
  };

  // The plugin's default: canary 0 %. Refused, naming the version they may use.
  Outcome first = submitV2(gw.baseUrl(), listed);
  EXPECT_FALSE(first.admitted);
  EXPECT_EQ(first.message, "activity type " + kV2 +
                               " is in canary and not yet open to organization " +
                               listed.organizationId + "; use " + kV1 + " instead");
  Outcome fromChild = submitV2(gw.baseUrl(), child);
  EXPECT_NE(fromChild.message.find("(which follows " + root.organizationId + ")"),
            std::string::npos)
      << fromChild.message;
  expectEvery([](const Tenant&) { return false; }, "canary 0%");

  // Canary 10 % plus two listed organizations: exactly those, by the stable bucket.
  set({kV2, "canary", "--percent", "10", "--orgs",
       listed.organizationId + "," + root.organizationId});
  settle(listed, true);
  expectEvery(
      [&](const Tenant& t) {
        return t.organizationId == listed.organizationId || rolloutBucket(t.organizationId) < 10;
      },
      "canary 10%");
  EXPECT_TRUE(submitV2(gw.baseUrl(), child).admitted) << "a sub-organization follows its parent";
  size_t admitted = 0;
  for (const auto& t : tenants) admitted += rolloutBucket(t.organizationId) < 10;
  RecordProperty("admitted_by_bucket_at_10_percent", static_cast<int>(admitted));

  // Canary 100 %, then general: everyone, and no deprecation headers.
  // The probe must be one whose outcome changes: outside the 10 % and not listed.
  const Tenant* outsider = nullptr;
  for (const auto& t : tenants)
    if (!outsider && &t != &listed && rolloutBucket(t.organizationId) >= 10) outsider = &t;
  ASSERT_NE(outsider, nullptr);
  set({kV2, "canary", "--percent", "100"});
  settle(*outsider, true);
  expectEvery([](const Tenant&) { return true; }, "canary 100%");
  set({kV2, "general"});
  Outcome general = submitV2(gw.baseUrl(), listed);
  EXPECT_TRUE(general.admitted);
  EXPECT_EQ(general.headers.count("Deprecation"), 0u);
  expectEvery([](const Tenant&) { return true; }, "general");

  // Deprecated: still admitted, and told when it goes and what replaces it.
  set({kV2, "deprecated", "--sunset", "2027-06-01", "--replacement", kV1});
  for (const auto& url : gateways) {
    auto headers = eventually(url, listed, [](const Outcome& o) {
                     return o.headers.count("Deprecation") > 0;
                   }).headers;
    ASSERT_TRUE(headers.count("Deprecation")) << url;
    EXPECT_EQ(headers["Deprecation"].rfind("@", 0), 0u) << headers["Deprecation"];
    EXPECT_EQ(headers["Sunset"], "Tue, 01 Jun 2027 00:00:00 GMT");
    EXPECT_EQ(
        headers["Link"],
        "</public/v1/submit/signet_create_memo>; rel=\"successor-version\"; title=\"" + kV1 + "\"");
  }
  expectEvery([](const Tenant&) { return true; }, "deprecated");

  // Retired: refused, naming the replacement; disabled: refused, naming the version.
  set({kV2, "retired", "--replacement", kV1});
  settle(listed, false);
  EXPECT_EQ(submitV2(gw.baseUrl(), listed).message,
            "activity type " + kV2 + " has been retired; use " + kV1 + " instead");
  expectEvery([](const Tenant&) { return false; }, "retired");
  set({kV2, "disabled"});
  EXPECT_EQ(eventually(
                gw.baseUrl(), listed,
                [](const Outcome& o) { return o.message.find("is disabled") != std::string::npos; })
                .message,
            "activity type " + kV2 +
                " (version 2 of /public/v1/submit/signet_create_memo) is "
                "disabled in this gateway");
  // Version 1 was never touched.
  json::Object p = json::object();
  p->set("text", "still here");
  EXPECT_EQ(Client(gw.baseUrl(), listed.stamper)
                .submit("signet_create_memo", kV1, listed.organizationId, p)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  if (secondServer) secondServer->stop();
}

// Bad input to the operator's command changes nothing and names what is wrong.
TEST_P(RolloutTest, BadRolloutCommandsAreRefusedNamingTheValue) {
  TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
  std::string config = operatorConfig(gw);
  auto sub = createSubOrganization(gw, "bob@example.com", "+15555550101");
  std::string ghostOrg = crypto::uuidV4();
  for (const auto& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{kV2, "canary", "--percent", "101"},
            "--percent must be a whole number from 0 to 100, not '101'"},
           {{kV2, "canary", "--percent", "-5"}, "not '-5'"},
           {{"ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V9", "general"},
            "unknown activity type 'ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V9'"},
           {{kV2, "sideways"}, "unknown state 'sideways'"},
           {{kV2, "general", "--percent", "5"}, "--percent goes with canary, not general"},
           {{kV2, "canary", "--orgs", ghostOrg},
            "organization '" + ghostOrg + "', which does not exist"},
           {{kV2, "canary", "--orgs", sub.id}, "a sub-organization; it follows its parent"},
           {{kV2, "deprecated", "--sunset", "June"},
            "--sunset must be a date YYYY-MM-DD, not 'June'"},
           {{kV2, "retired", "--replacement", kV2}, "is not another activity type"},
       }) {
    std::vector<std::string> full = {"rollout", "set"};
    full.insert(full.end(), args.begin(), args.end());
    full.insert(full.end(), {"--data-dir", gw.dataDir().string(), "--config", config});
    auto r = runSignet(full);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_rollouts"), 0);
  auto list =
      runSignet({"rollout", "list", "--data-dir", gw.dataDir().string(), "--config", config});
  EXPECT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find(kV2), std::string::npos);
  EXPECT_NE(list.out.find("canary     default   0%"), std::string::npos) << list.out;
}

}  // namespace
}  // namespace signet::test
