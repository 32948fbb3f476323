// The plugin host against real shared libraries: the memo plugin, one built for another ABI,
// and one that is not a plugin at all.
#include "plugins/plugin_host.hpp"
#include "support/test_gateway.hpp"

#ifndef SIGNET_TEST_PLUGIN_DIR
#error "SIGNET_TEST_PLUGIN_DIR must name the folder with the test plugins"
#endif

namespace signet::test {
namespace {

class PluginTest : public BackendTest {};
SIGNET_BACKEND_SUITE(PluginTest);

TEST(PluginHostTest, LoadsMemoAndRefusesTheOthersSayingWhy) {
  PluginHost host;
  auto modules = host.discover(SIGNET_TEST_PLUGIN_DIR, {"memo"});
  ASSERT_EQ(modules.size(), 2u);  // memo and the hook recorder, in file-name order
  EXPECT_EQ(modules[1].name, "recorder");
  EXPECT_FALSE(modules[1].enabled);
  EXPECT_EQ(modules[0].name, "memo");
  EXPECT_EQ(modules[0].version, "0.1.0");
  EXPECT_TRUE(modules[0].enabled);
  ASSERT_EQ(modules[0].activities.size(), 1u);
  EXPECT_EQ(modules[0].activities[0].type, "ACTIVITY_TYPE_SIGNET_CREATE_MEMO");
  ASSERT_EQ(host.problems().size(), 2u);
  std::string all;
  for (const auto& p : host.problems()) all += p.path + ": " + p.message + "\n";
  EXPECT_NE(
      all.find("libsignet-plugin-badabi.so: plugin 'badabi' 9.9.9 was built for plugin ABI 42, "
               "but this gateway speaks ABI " +
               std::to_string(kPluginAbiVersion)),
      std::string::npos)
      << all;
  EXPECT_NE(all.find("libsignet-plugin-notaplugin.so: not a Signet plugin"), std::string::npos)
      << all;
}

TEST_P(PluginTest, EnabledPluginThatCannotLoadStopsStartup) {
  for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
           {"badabi", "built for plugin ABI 42"}, {"ghost", "was not found"}}) {
    try {
      TestGateway gw(GetParam(), {name}, SIGNET_TEST_PLUGIN_DIR);
      FAIL() << name << " did not stop startup";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'" + name + "'"), std::string::npos) << e.what();
    }
  }
}

TEST_P(PluginTest, DisabledPluginPathsAnswerAnErrorNamingThePlugin) {
  TestGateway gw(GetParam(), {}, SIGNET_TEST_PLUGIN_DIR);
  json::Object params = json::object();
  params->set("text", "x");
  try {
    gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                           gw.root().organizationId, params);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 501);
    EXPECT_NE(std::string(e.what()).find("plugin 'memo'"), std::string::npos) << e.what();
  }
  json::Object q = json::object();
  q->set("organizationId", gw.root().organizationId);
  try {
    gw.rootClient().query("signet_list_memos", q);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("plugin 'memo'"), std::string::npos) << e.what();
  }
  // Its migrations did not run either.
  EXPECT_ANY_THROW(gw.count("SELECT COUNT(*) FROM memo_entries"));
}

TEST_P(PluginTest, MemoPluginEndToEnd) {
  TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
  json::Object params = json::object();
  params->set("text", "rotated the CI key");
  auto a = gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                                  gw.root().organizationId, params);
  ASSERT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  std::string memoId =
      a->getObject("result")->getObject("signetCreateMemoResult")->getValue<std::string>("memoId");
  json::Object q = json::object();
  q->set("organizationId", gw.root().organizationId);
  auto memos = gw.rootClient().query("signet_list_memos", q)->getArray("memos");
  ASSERT_EQ(memos->size(), 1u);
  EXPECT_EQ(memos->getObject(0)->getValue<std::string>("memoId"), memoId);
  EXPECT_EQ(memos->getObject(0)->getValue<std::string>("authorUserId"), gw.root().userId);
  // Organization-scoped: another tenant sees none.
  auto [other, stamper] = gw.createOrganization("Other");
  q->set("organizationId", other.organizationId);
  EXPECT_EQ(gw.clientWith(stamper).query("signet_list_memos", q)->getArray("memos")->size(), 0u);
  // Too long a memo is bad input.
  params->set("text", std::string(2000, 'x'));
  try {
    gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                           gw.root().organizationId, params);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("parameters.text"), std::string::npos);
  }
}

}  // namespace
}  // namespace signet::test
