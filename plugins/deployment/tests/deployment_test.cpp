// get_app_status from the heartbeats real gateways write: one gateway, gateways of another
// version and ones that vanished without stopping, two gateways sharing one PostgreSQL store
// (one stopping cleanly), and the boot-proof queries, which say no enclave backs a gateway.
#include "gateway.hpp"
#include "server/http_server.hpp"
#include "signet/version.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

const std::string kDeployment = std::string("signet-") + SIGNET_SDK_VERSION;

std::unique_ptr<TestGateway> deploymentGateway(Backend backend) {
  return std::make_unique<TestGateway>(
      backend, std::vector<std::string>{"deployment"}, std::filesystem::path{},
      std::map<std::string, json::Object>{
          {"deployment", json::parseObject(R"({"heartbeatSeconds": 1})", "settings")}});
}

json::Object appStatus(TestGateway& gw, const std::string& appId = "signet") {
  json::Object body = orgBody(gw.root().organizationId);
  body->set("appId", appId);
  return gw.rootClient().query("get_app_status", body)->getObject("appStatus");
}

// deploymentId -> (ready, desired)
std::map<std::string, std::pair<int, int>> replicas(const json::Object& status) {
  std::map<std::string, std::pair<int, int>> out;
  auto list = status->getArray("deployments");
  for (unsigned i = 0; i < list->size(); ++i) {
    auto d = list->getObject(i);
    out[d->getValue<std::string>("deploymentId")] = {d->getValue<int>("readyReplicas"),
                                                     d->getValue<int>("desiredReplicas")};
  }
  return out;
}

class DeploymentTest : public BackendTest {};
SIGNET_BACKEND_SUITE(DeploymentTest);

TEST_P(DeploymentTest, OneGatewayIsOneReadyReplicaOfThisVersion) {
  auto gw = deploymentGateway(GetParam());
  ASSERT_TRUE(eventually([&] { return replicas(appStatus(*gw))[kDeployment].first == 1; }));
  auto status = appStatus(*gw);
  EXPECT_EQ(status->getValue<std::string>("appId"), "signet");
  EXPECT_EQ(status->getValue<std::string>("targetedDeploymentId"), kDeployment);
  EXPECT_EQ(replicas(status), (std::map<std::string, std::pair<int, int>>{{kDeployment, {1, 1}}}));
  EXPECT_TRUE(status->getArray("deployments")->getObject(0)->has("lastUpdatedTime"));
}

TEST_P(DeploymentTest, AVanishedGatewayIsDesiredButNotReadyUntilForgotten) {
  auto gw = deploymentGateway(GetParam());
  ASSERT_TRUE(eventually([&] { return replicas(appStatus(*gw))[kDeployment].first == 1; }));
  int64_t now = systemNowMs();
  gw->write([&](Db& db) {
    // A gateway of this version killed a minute ago; one of an older version, alive; and one
    // gone for two hours, past forgetAfterHours.
    for (const auto& [id, version, beat] :
         std::vector<std::tuple<std::string, std::string, int64_t>>{
             {"killed", SIGNET_SDK_VERSION, now - 60'000},
             {"older", "0.0.9", now + 60'000},
             {"long-gone", SIGNET_SDK_VERSION, now - 2 * 3'600'000}})
      db.exec(
          "INSERT INTO deployment_instances (id, host, pid, version, started_at_ms, "
          "heartbeat_at_ms) VALUES (?, 'elsewhere', 1, ?, ?, ?)",
          {id, version, beat, beat});
  });
  // The next heartbeat forgets the long-gone one; the killed one stays desired.
  ASSERT_TRUE(eventually([&] {
    return gw->count("SELECT COUNT(*) FROM deployment_instances WHERE id = 'long-gone'") == 0;
  }));
  EXPECT_EQ(replicas(appStatus(*gw)), (std::map<std::string, std::pair<int, int>>{
                                          {kDeployment, {1, 2}}, {"signet-0.0.9", {1, 1}}}));
}

TEST_P(DeploymentTest, UnknownAppsAndBootProofsAreRefusedSayingWhy) {
  auto gw = deploymentGateway(GetParam());
  try {
    appStatus(*gw, "another-app");
    ADD_FAILURE() << "an unknown app was answered";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404);
    EXPECT_NE(std::string(e.what()).find("another-app"), std::string::npos) << e.what();
  }
  json::Object body = orgBody(gw->root().organizationId);
  body->set("appName", "signet");
  try {
    gw->rootClient().query("get_latest_boot_proof", body);
    ADD_FAILURE() << "a boot proof was answered";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 501);
    EXPECT_NE(std::string(e.what()).find("attested enclave"), std::string::npos) << e.what();
  }
  body = orgBody(gw->root().organizationId);
  body->set("ephemeralKey", "not hex");
  try {
    gw->rootClient().query("get_boot_proof", body);
    ADD_FAILURE() << "a malformed key was answered";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("ephemeralKey"), std::string::npos) << e.what();
  }
}

TEST(DeploymentPostgresTest, TwoGatewaysOnOneStoreAreTwoReplicasAndOneStoppingLeaves) {
  SIGNET_NEED_POSTGRES();
  auto first = deploymentGateway(Backend::kPostgres);
  Gateway second(first->gateway().config());
  second.startBackground();
  ASSERT_TRUE(eventually([&] { return replicas(appStatus(*first))[kDeployment].first == 2; }));
  EXPECT_EQ(replicas(appStatus(*first))[kDeployment].second, 2);
  second.stopBackground();  // a clean stop deregisters
  EXPECT_EQ(replicas(appStatus(*first)),
            (std::map<std::string, std::pair<int, int>>{{kDeployment, {1, 1}}}));
}

}  // namespace
}  // namespace signet::test
