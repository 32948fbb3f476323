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

// A module's interest query chooses the organizations whose events it gets. Here the recorder
// wants those it holds a wallet of, or whose parent it does: an organization without one writes
// nothing to the outbox, and the query sees rows written just before, in its own transaction's
// store. A query the store refuses stops the gateway at start-up, naming the module and why.
TEST_P(ActivityEventsTest, AnInterestQueryChoosesTheOrganizationsAndABrokenOneStopsStartUp) {
  json::Object wanted = json::object();
  wanted->set("interestQuery",
              "SELECT 1 FROM recorder_wallets WHERE organization_id IN (?, ?) LIMIT 1");
  TestGateway gw(GetParam(), {"recorder"}, SIGNET_TEST_PLUGIN_DIR, {{"recorder", wanted}});
  const std::string org = gw.root().organizationId;
  auto recorded = [&](const std::string& activity) {
    return gw.count("SELECT COUNT(*) FROM recorder_activity_events WHERE activity_id = ?",
                    {activity});
  };
  std::string unheard = createTag(gw, "unheard");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_events"), 0);
  gw.write([&](Db& db) {
    db.exec("INSERT INTO recorder_wallets (id, organization_id, name) VALUES ('w', ?, 'w')", {org});
  });
  std::string heard = createTag(gw, "heard");
  ASSERT_TRUE(eventually([&] { return recorded(heard) == 1; }));
  EXPECT_EQ(recorded(unheard), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_events"), 0);

  json::Object broken = json::object();
  broken->set("interestQuery", "SELECT 1 FROM recorder_nothing WHERE organization_id IN (?, ?)");
  try {
    TestGateway refused(GetParam(), {"recorder"}, SIGNET_TEST_PLUGIN_DIR, {{"recorder", broken}});
    ADD_FAILURE() << "a gateway started with a broken interest query";
  } catch (const Error& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find("module 'recorder'"), std::string::npos) << why;
    EXPECT_NE(why.find("interest query"), std::string::npos) << why;
    EXPECT_NE(why.find("recorder_nothing"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace signet::test
