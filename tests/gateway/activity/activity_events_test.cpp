// The core's activity event outbox, seen from a plugin (the recorder test plugin): every status
// change reaches the handler once it commits, with the parent organization; an event whose
// handler fails waits for its retry while later events go on, and nothing is left behind.
#include <thread>

#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class ActivityEventsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ActivityEventsTest);

std::string createTag(TestGateway& gw, const std::string& name) {
  json::Object p = json::object();
  p->set("userTagName", name);
  p->set("userIds", json::array());
  return gw.rootClient()
      .submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", gw.root().organizationId, p)
      ->getValue<std::string>("id");
}

TEST_P(ActivityEventsTest, EveryChangeReachesTheHandlerAndAFailingEventWaitsAlone) {
  TestGateway gw(GetParam(), {"recorder"}, SIGNET_TEST_PLUGIN_DIR);
  std::string poison = createTag(gw, "poison");
  std::string a = createTag(gw, "a");
  std::string b = createTag(gw, "b");
  auto recorded = [&](const std::string& activity) {
    return gw.count(
        "SELECT COUNT(*) FROM recorder_activity_events WHERE activity_id = ? AND "
        "status = 'ACTIVITY_STATUS_COMPLETED'",
        {activity});
  };
  ASSERT_TRUE(eventually([&] { return recorded(a) == 1 && recorded(b) == 1; }));
  EXPECT_EQ(recorded(poison), 0);
  // The poison event is still in the outbox, tried and waiting; the others are gone from it.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_events"), 1);
  EXPECT_TRUE(eventually([&] {
    return gw.count("SELECT attempts FROM activity_events WHERE activity_id = ?", {poison}) >= 1;
  }));
  EXPECT_GT(
      gw.count("SELECT next_attempt_at_ms FROM activity_events WHERE activity_id = ?", {poison}),
      gw.gateway().nowMs() - 1000);
  // A sub-organization's activity carries its parent.
  Key key = newKey();
  auto created = resultOf(
      gw.rootClient().submit(
          "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
          gw.root().organizationId,
          json::parseObject(R"({"subOrganizationName":"child","rootQuorumThreshold":1,
              "rootUsers":[{"userName":"c","apiKeys":[{"apiKeyName":"k","publicKey":")" +
                                key.publicKey +
                                R"(","curveType":"API_KEY_CURVE_P256"}],"authenticators":[],
              "oauthProviders":[]}]})",
                            "sub")),
      "createSubOrganizationResultV7");
  std::string subId = created->getValue<std::string>("subOrganizationId");
  json::Object tag = json::object();
  tag->set("userTagName", "inside");
  tag->set("userIds", json::array());
  std::string inside = gw.clientWith(key.stamper)
                           .submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", subId, tag)
                           ->getValue<std::string>("id");
  ASSERT_TRUE(eventually([&] { return recorded(inside) == 1; }));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM recorder_activity_events WHERE activity_id = ? AND "
                     "organization_id = ? AND parent_organization_id = ?",
                     {inside, subId, gw.root().organizationId}),
            1);
  // An activity that deletes its own organization still completes and is still published
  // (with no parent left to name).
  json::Object del = json::object();
  del->set("deleteWithoutExport", true);
  auto deleted =
      gw.clientWith(key.stamper)
          .submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", subId, del);
  ASSERT_EQ(deleted->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
      << json::stringify(deleted);
  EXPECT_TRUE(eventually([&] { return recorded(deleted->getValue<std::string>("id")) == 1; }));
}

}  // namespace
}  // namespace signet::test
