// GET /metrics: Prometheus text that moves with what the gateway does (requests by route and
// status with a latency histogram, activities by type and status, policy outcomes, the store's
// pool waits and commit batches, refusals, plugin failures, the event outbox and the webhooks
// queue), served to loopback clients only on the main listener, or on an address of its own.
#include <Poco/Net/StreamSocket.h>

#include <fstream>
#include <regex>

#include "observability/scrape.hpp"
#include "support/metric_sample.hpp"
#include "support/signet_cli.hpp"
#include "support/test_org.hpp"

#ifndef SIGNET_TEST_PLUGIN_DIR
#error "SIGNET_TEST_PLUGIN_DIR must name the test plugins' directory"
#endif

namespace signet::test {
namespace {

std::string scrape(const TestGateway& gw) {
  auto r = httpGet(gw.baseUrl(), "/metrics");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.contentType, "text/plain; version=0.0.4");
  return r.body;
}

class MetricsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(MetricsTest);

TEST_P(MetricsTest, CountersMoveWithRequestsActivitiesPoliciesAndTheStore) {
  TestGateway gw(GetParam(), {"webhooks"});
  const std::string tagRoute = R"(route="/public/v1/submit/create_user_tag")";
  const std::string ok =
      R"(signet_http_requests_total{listener="main",)" + tagRoute + R"(,status="200"})";
  const std::string completed =
      R"(signet_activities_total{type="ACTIVITY_TYPE_CREATE_USER_TAG",status="ACTIVITY_STATUS_COMPLETED"})";
  const std::string allow = R"(signet_policy_outcomes_total{outcome="ALLOW"})";
  const std::string deny = R"(signet_policy_outcomes_total{outcome="DENY"})";
  const std::string batches = "signet_store_commit_batch_size_count";
  const std::string poolWaits = "signet_store_pool_wait_seconds_count";
  const std::string unmatched =
      R"(signet_http_requests_total{listener="main",route="unmatched",status="404"})";
  const std::string malformed = R"(signet_refusals_total{reason="malformed_request"})";

  // The registry is the process's: other tests' gateways count into it too, so each check is
  // on the difference this test makes.
  std::string before = scrape(gw);
  auto value = [&](const std::string& text, const std::string& series) {
    return std::max(0.0, metricSample(text, series));
  };

  for (int i = 0; i < 3; ++i) {
    json::Object tag = json::object();
    tag->set("userTagName", "metrics-" + std::to_string(i));
    tag->set("userIds", json::array());
    gw.rootClient().submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG",
                           gw.root().organizationId, tag);
  }
  // A user under a deny-all policy: one DENY.
  Org org(gw);
  std::string bob = org.user("bob");
  org.policy("no tags", "EFFECT_DENY", "activity.resource == 'USER_TAG'");
  json::Object tag = json::object();
  tag->set("userTagName", "denied");
  tag->set("userIds", json::array());
  org.as(bob).submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org.org(), tag);
  // A path nothing serves, twice, and a request line that is not HTTP.
  EXPECT_EQ(httpGet(gw.baseUrl(), "/no/such/path-1").status, 404);
  EXPECT_EQ(httpGet(gw.baseUrl(), "/no/such/path-2").status, 404);
  {
    Poco::Net::StreamSocket raw(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
    std::string junk = "NOT HTTP AT ALL\r\n\r\n";
    raw.sendBytes(junk.data(), static_cast<int>(junk.size()));
    char buf[512];
    raw.receiveBytes(buf, sizeof buf);
  }

  std::string after = scrape(gw);
  // Three tags and the denied one: a denial is an activity, answered 200 with its status.
  EXPECT_EQ(value(after, ok) - value(before, ok), 4) << after;
  EXPECT_GE(value(after, completed) - value(before, completed), 3);
  EXPECT_GE(value(after, allow) - value(before, allow), 3);
  EXPECT_GE(value(after, deny) - value(before, deny), 1);
  EXPECT_GT(value(after, batches), value(before, batches));
  EXPECT_GT(value(after, poolWaits), value(before, poolWaits));
  // What durability costs a write (exactly, in group_commit_test): every write is timed from
  // the queue to its commit, and for its wait in the queue. The webhooks plugin writes in the
  // background, so one of its writes may be between the two at either scrape.
  const double writes = value(after, "signet_store_write_seconds_count") -
                        value(before, "signet_store_write_seconds_count");
  EXPECT_GE(writes, 4);
  EXPECT_NEAR(value(after, "signet_store_write_queued_seconds_count") -
                  value(before, "signet_store_write_queued_seconds_count"),
              writes, 2);
  EXPECT_GT(value(after, "signet_store_commit_seconds_count"),
            value(before, "signet_store_commit_seconds_count"));
  // Unknown paths share one label: what clients send does not grow the registry.
  EXPECT_EQ(value(after, unmatched) - value(before, unmatched), 2);
  EXPECT_EQ(after.find("path-1"), std::string::npos);
  EXPECT_GE(value(after, malformed) - value(before, malformed), 1);
  // The latency histogram: cumulative buckets ending in +Inf, which equals the count.
  std::string latency = R"(signet_http_request_duration_seconds_bucket{listener="main",)" +
                        tagRoute + R"(,le="+Inf"})";
  EXPECT_EQ(value(after, latency), value(after,
                                         "signet_http_request_duration_seconds_count{"
                                         "listener=\"main\"," +
                                             tagRoute + "}"));
  EXPECT_NE(after.find("# TYPE signet_http_request_duration_seconds histogram"), std::string::npos);
  // Gauges read from the store: the outbox per subscribing module, and the webhooks queue.
  EXPECT_GE(metricSample(after, R"(signet_activity_events_pending{module="webhooks"})"), 0)
      << after;
  EXPECT_GE(metricSample(after, "signet_webhooks_pending_deliveries"), 0) << after;
  EXPECT_EQ(metricSample(after, "signet_store_up"), 1);
  // Every line is a comment or `name{labels} value`.
  std::regex line(R"(^(# (HELP|TYPE) .*|[a-z_]+(\{[^}]*\})? [-+0-9.eInf]+)$)");
  std::istringstream lines(after);
  for (std::string l; std::getline(lines, l);) EXPECT_TRUE(std::regex_match(l, line)) << l;
}

TEST_P(MetricsTest, PluginFailuresAreCountedByPluginAndSite) {
  TestGateway gw(GetParam(), {"thrower"}, SIGNET_TEST_PLUGIN_DIR, {{"thrower", [] {
                                                                      json::Object o =
                                                                          json::object();
                                                                      o->set("throwIn", "handler");
                                                                      return o;
                                                                    }()}});
  const std::string series =
      R"(signet_plugin_failures_total{plugin="thrower",site="handler of ACTIVITY_TYPE_THROWER_PING"})";
  double before = std::max(0.0, metricSample(scrape(gw), series));
  json::Object ping = json::object();
  ping->set("text", "hi");
  auto activity = gw.rootClient().submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING",
                                         gw.root().organizationId, ping);
  EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED");
  std::string after = scrape(gw);
  EXPECT_EQ(metricSample(after, series) - before, 1) << after;
}

// On the main listener, /metrics answers loopback clients only: the counters say what the
// deployment serves and to whom.
TEST(MetricsAccessTest, LoopbackOnlyOnTheMainListener) {
  EXPECT_TRUE(metricsAllowedFrom("127.0.0.1"));
  EXPECT_TRUE(metricsAllowedFrom("127.8.9.10"));
  EXPECT_TRUE(metricsAllowedFrom("::1"));
  EXPECT_TRUE(metricsAllowedFrom("::ffff:127.0.0.1"));
  EXPECT_FALSE(metricsAllowedFrom("10.0.0.1"));
  EXPECT_FALSE(metricsAllowedFrom("::ffff:10.0.0.1"));
  EXPECT_FALSE(metricsAllowedFrom("1270.0.0.1"));

  TestGateway gw(Backend::kSqlite, {});
  Router router(gw.gateway());
  HttpRequestData request{.method = "GET", .path = "/metrics"};
  request.peer = "192.0.2.7";
  auto refused = router.handle(request);
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find("loopback clients only"), std::string::npos) << refused.body;
  EXPECT_EQ(refused.body.find("signet_"), std::string::npos);
  request.peer = "127.0.0.1";
  auto served = router.handle(request);
  EXPECT_EQ(served.status, 200);
  EXPECT_NE(served.body.find("# TYPE signet_http_requests_total counter"), std::string::npos);
  // This test's own process links no mimalloc, and says so.
  EXPECT_NE(served.body.find("signet_memory_allocator_info{allocator=\"" SIGNET_TEST_ALLOCATOR
                             "\",version=\""),
            std::string::npos)
      << served.body;
}

// metrics.listen: served on that address to whoever reaches it, and no longer on the main one.
TEST(MetricsAccessTest, AnAddressOfItsOwn) {
  auto dir =
      (std::filesystem::temp_directory_path() / ("signet-metrics-" + crypto::uuidV4())).string();
  ASSERT_EQ(runSignet({"init", "--data-dir", dir, "--plugins", "memo"}).exitCode, 0);
  auto file = dir + "/signet.json";
  std::ifstream in(file);
  auto config = json::parseObject(
      std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), file);
  json::Object metrics = json::object();
  metrics->set("listen", "127.0.0.1:0");
  config->set("metrics", metrics);
  std::ofstream(file) << json::stringify(config);

  ServeProcess serve(dir);
  std::string line = serve.nextLine();
  ASSERT_EQ(line.rfind("metrics on http://127.0.0.1:", 0), 0u) << line;
  std::string url = line.substr(std::string("metrics on ").size());
  std::string base = url.substr(0, url.size() - std::string("/metrics").size());
  auto served = httpGet(base, "/metrics");
  EXPECT_EQ(served.status, 200);
  EXPECT_NE(served.body.find("signet_store_up 1"), std::string::npos) << served.body;
  // The binary's allocator is in force: its blocks are mimalloc's, not merely its library loaded.
  EXPECT_NE(served.body.find("signet_memory_allocator_info{allocator=\"" SIGNET_BINARY_ALLOCATOR
                             "\",version=\""),
            std::string::npos)
      << served.body;
  auto main = httpGet(serve.baseUrl(), "/metrics");
  EXPECT_EQ(main.status, 404);
  EXPECT_NE(main.body.find("metrics.listen"), std::string::npos) << main.body;
  EXPECT_EQ(httpGet(base, "/healthz").status, 404);  // that listener serves metrics alone
  EXPECT_EQ(serve.stop(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
