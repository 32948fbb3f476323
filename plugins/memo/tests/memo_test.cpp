// The memo plugin through the plugin test kit: its registration, both versions of its activity,
// the shapes refused before the handler, its query and its routes, on a real SQLite store.
#include <gtest/gtest.h>

#include "signet/testkit.hpp"

namespace {

using namespace signet;
using testkit::PluginHarness;

json::Object params(std::initializer_list<std::pair<const char*, std::string>> fields) {
  json::Object p = json::object();
  for (const auto& [k, v] : fields) p->set(k, v);
  return p;
}

size_t memoCount(PluginHarness& harness) {
  size_t n = 0;
  harness.read([&](Db& db) {
    n = static_cast<size_t>(db.queryOne("SELECT COUNT(*) AS n FROM memo_entries")->i64("n"));
  });
  return n;
}

TEST(MemoPlugin, RegistersBothVersionsAtOnePathWithV2AsCanary) {
  PluginHarness harness(signet_plugin_register);
  ASSERT_EQ(harness.activities().size(), 2u);
  EXPECT_EQ(harness.activities()[0].path, harness.activities()[1].path);
  EXPECT_EQ(harness.activities()[1].type, "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2");
  EXPECT_EQ(harness.activities()[1].rollout.state, RolloutState::kCanary);
  // No listener unless the settings give it an address.
  EXPECT_TRUE(harness.listeners().empty());
}

TEST(MemoPlugin, EachVersionStoresWhatItCarriesAndTheQueryListsThem) {
  PluginHarness harness(signet_plugin_register);
  auto v1 = harness.submit("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", params({{"text", "first"}}));
  EXPECT_FALSE(v1->has("title"));
  harness.advanceMs(1000);
  auto v2 = harness.submit("ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2",
                           params({{"title", "T"}, {"text", "second"}}));
  EXPECT_EQ(v2->getValue<std::string>("title"), "T");

  json::Object body = json::object();
  auto memos = harness.query("signet_list_memos", body)->getArray("memos");
  ASSERT_EQ(memos->size(), 2u);
  EXPECT_EQ(memos->getObject(0)->getValue<std::string>("memoId"),
            v1->getValue<std::string>("memoId"));
  EXPECT_FALSE(memos->getObject(0)->has("title"));
  EXPECT_EQ(memos->getObject(1)->getValue<std::string>("title"), "T");
  EXPECT_EQ(memos->getObject(1)->getValue<std::string>("authorUserId"), harness.caller().userId);
}

TEST(MemoPlugin, DeclaredShapesRefuseBadIntentsAndNothingIsStored) {
  PluginHarness harness(signet_plugin_register);
  struct Case {
    std::string type;
    json::Object parameters;
    std::string field;
  };
  json::Object numeric = json::object();
  numeric->set("text", 7);
  std::vector<Case> cases = {
      {"ACTIVITY_TYPE_SIGNET_CREATE_MEMO", json::object(), "parameters.text"},
      {"ACTIVITY_TYPE_SIGNET_CREATE_MEMO", numeric, "parameters.text"},
      {"ACTIVITY_TYPE_SIGNET_CREATE_MEMO", params({{"text", std::string(1025, 'x')}}),
       "parameters.text"},
      {"ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2", params({{"text", "no title"}}), "parameters.title"},
  };
  for (const auto& c : cases) {
    try {
      harness.submit(c.type, c.parameters);
      ADD_FAILURE() << c.type << " accepted " << json::stringify(c.parameters);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(memoCount(harness), 0u);
}

TEST(MemoPlugin, RoutesAnswerPublicWithoutACallerAndStampedWithOne) {
  PluginHarness harness(signet_plugin_register);
  harness.submit("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", params({{"text", "latest one"}}));
  auto about = harness.route("GET", "/about");
  EXPECT_EQ(about.status, 200);
  EXPECT_NE(about.body.find("memo"), std::string::npos);

  auto latest = json::parseObject(harness.route("POST", "/latest", "{}").body, "reply");
  EXPECT_EQ(latest->getValue<std::string>("text"), "latest one");
  EXPECT_EQ(latest->getValue<std::string>("askedBy"), harness.caller().userId);
}

TEST(MemoPlugin, AListenerComesFromTheSettings) {
  json::Object settings = json::object();
  settings->set("listen", "127.0.0.1:0");
  PluginHarness harness(signet_plugin_register, {.settings = settings});
  ASSERT_EQ(harness.listeners().size(), 1u);
  EXPECT_EQ(harness.listeners()[0].address, "127.0.0.1:0");
}

}  // namespace
