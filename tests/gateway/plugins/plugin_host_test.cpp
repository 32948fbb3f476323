// The plugin host against real shared libraries: descriptors read from files, only enabled
// plugins loaded, broken libraries refused naming what is wrong, pins, and a plugin that throws
// at each site it can (test_plugins/thrower_plugin.cpp) never taking the gateway down.
#include <fstream>

#include "plugins/plugin_host.hpp"
#include "support/test_org.hpp"

#ifndef SIGNET_TEST_PLUGIN_DIR
#error "SIGNET_TEST_PLUGIN_DIR must name the folder with the test plugins"
#endif

namespace signet::test {
namespace {

namespace fs = std::filesystem;

class PluginTest : public BackendTest {};
SIGNET_BACKEND_SUITE(PluginTest);

// A fresh folder holding copies of `files` (source path -> name in the folder).
struct PluginFolder {
  fs::path dir = fs::temp_directory_path() / ("signet-plugins-" + crypto::uuidV4());
  explicit PluginFolder(const std::vector<std::pair<fs::path, std::string>>& files) {
    fs::create_directories(dir);
    for (const auto& [from, name] : files) fs::copy_file(from, dir / name);
  }
  ~PluginFolder() { fs::remove_all(dir); }
};

fs::path testPlugin(const std::string& name) {
  return fs::path(SIGNET_TEST_PLUGIN_DIR) / pluginFileName(name);
}
fs::path brokenPlugin(const std::string& name) {
  return fs::path(SIGNET_BROKEN_PLUGIN_DIR) / pluginFileName(name);
}

std::string fileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string problemsOf(const PluginHost& host) {
  std::string all;
  for (const auto& p : host.problems()) all += p.path + ": " + p.message + "\n";
  return all;
}

TEST(PluginHostTest, ReadsEveryDescriptorButLoadsOnlyTheEnabled) {
  PluginHost host;
  auto modules = host.discover(SIGNET_TEST_PLUGIN_DIR, {"memo"});
  EXPECT_TRUE(host.problems().empty()) << problemsOf(host);
  ASSERT_EQ(modules.size(), 4u);  // in file-name order
  EXPECT_EQ(modules[0].name, "memo");
  EXPECT_EQ(modules[0].version, "0.1.0");
  EXPECT_TRUE(modules[0].enabled);
  EXPECT_TRUE(modules[0].library);
  ASSERT_EQ(modules[0].activities.size(), 2u);  // memo and its canary V2
  EXPECT_EQ(modules[0].activities[0].type, "ACTIVITY_TYPE_SIGNET_CREATE_MEMO");
  // The tripwire aborts the process when loaded: that this test runs on proves it was not.
  const ModuleInfo& tripwire = modules[3];
  EXPECT_EQ(tripwire.name, "tripwire");
  EXPECT_FALSE(tripwire.enabled);
  EXPECT_FALSE(tripwire.library);
  EXPECT_TRUE(tripwire.activities.empty());
  EXPECT_EQ(tripwire.description, "aborts if it is ever loaded");
  EXPECT_EQ(tripwire.declaredSubmitPaths, std::vector<std::string>{"tripwire_submit"});
  EXPECT_EQ(tripwire.declaredQueryPaths, std::vector<std::string>{"tripwire_query"});
}

// The digest is derived from the headers: a plugin built against a copy with one struct member
// more carries another one, with no version bumped, and is refused naming both.
TEST(PluginHostTest, APluginBuiltAgainstChangedHeadersIsRefusedNamingBothDigests) {
  PluginFolder folder({{brokenPlugin("changedheaders"), pluginFileName("changedheaders")}});
  PluginHost host;
  auto modules = host.discover(folder.dir, {"changedheaders"});
  std::string all = problemsOf(host);
  const std::string ours = SIGNET_SDK_HEADERS_HASH;
  ASSERT_EQ(ours.size(), 16u);
  const std::string said = "was built with headers ";
  auto at = all.find(said);
  ASSERT_NE(at, std::string::npos) << all;
  std::string theirs = all.substr(at + said.size(), 16);
  EXPECT_NE(theirs, ours) << all;
  EXPECT_EQ(theirs.find_first_not_of("0123456789abcdef"), std::string::npos) << all;
  EXPECT_NE(all.find("but this gateway with headers " + ours), std::string::npos) << all;
  EXPECT_TRUE(modules.empty());  // refused from the file: nothing of it is loaded
}

TEST(PluginHostTest, RefusesBrokenLibrariesNamingWhatIsWrong) {
  std::string memo = fileBytes(testPlugin("memo"));
  struct Case {
    std::string what;
    std::vector<std::pair<fs::path, std::string>> files;
    std::string truncateTo;  // the file name to cut short, if any
    size_t keep = 0;
    std::string expected;
  };
  std::vector<Case> cases = {
      {"another build",
       {{brokenPlugin("badbuild"), pluginFileName("badbuild")}},
       "",
       0,
       "plugin 'badbuild' 9.9.9 (DIR/libsignet-plugin-badbuild.so) was built with poco 1.12.4, "
       "but this gateway with poco "},
      {"other SDK headers",
       {{brokenPlugin("changedheaders"), pluginFileName("changedheaders")}},
       "",
       0,
       "plugin 'changedheaders' 1.0.0 (DIR/libsignet-plugin-changedheaders.so) was built with "
       "headers "},
      {"not a plugin",
       {{brokenPlugin("notaplugin"), pluginFileName("notaplugin")}},
       "",
       0,
       "DIR/libsignet-plugin-notaplugin.so: not a Signet plugin: it has no signet_descriptor "
       "section"},
      {"truncated",
       {{testPlugin("memo"), pluginFileName("memo")}},
       pluginFileName("memo"),
       memo.size() / 2,
       "DIR/libsignet-plugin-memo.so: not a Signet plugin: truncated or malformed ELF file"},
      {"a stub",
       {{testPlugin("memo"), pluginFileName("memo")}},
       pluginFileName("memo"),
       10,
       "not a Signet plugin: truncated or malformed ELF file: no ELF magic number"},
      {"two of one name",
       {{testPlugin("memo"), pluginFileName("memo")},
        {testPlugin("memo"), pluginFileName("memo2")}},
       "",
       0,
       "DIR/libsignet-plugin-memo2.so: a second plugin named 'memo' (the first is "
       "DIR/libsignet-plugin-memo.so)"},
      {"misnamed",
       {{testPlugin("memo"), pluginFileName("other")}},
       "",
       0,
       "the file is named libsignet-plugin-other.so but holds plugin 'memo', which must be in "
       "libsignet-plugin-memo.so"},
  };
  for (const auto& c : cases) {
    PluginFolder folder(c.files);
    if (!c.truncateTo.empty()) fs::resize_file(folder.dir / c.truncateTo, c.keep);
    PluginHost host;
    auto modules =
        host.discover(folder.dir, {"memo", "badbuild", "changedheaders", "notaplugin", "other"});
    std::string all = problemsOf(host);
    std::string expected = c.expected;
    for (size_t at; (at = expected.find("DIR")) != std::string::npos;)
      expected.replace(at, 3, folder.dir.string());
    EXPECT_NE(all.find(expected), std::string::npos) << c.what << ":\n" << all;
    for (const auto& m : modules) EXPECT_TRUE(m.activities.empty() || m.name == "memo") << c.what;
  }
}

TEST(PluginHostTest, PinsAreCheckedBeforeLoading) {
  PluginFolder folder({{testPlugin("memo"), pluginFileName("memo")}});
  std::string bytes = fileBytes(folder.dir / pluginFileName("memo"));
  std::string actual = "sha256:" + toHex(crypto::sha256(bytes).data(), 32);
  std::string wrong = "sha256:" + std::string(64, '0');
  {
    PluginHost host;
    auto modules = host.discover(folder.dir, {"memo"}, {}, {{"memo", wrong}});
    EXPECT_TRUE(modules.empty());
    EXPECT_NE(problemsOf(host).find("plugin 'memo' is pinned to " + wrong +
                                    " (plugins.pins), but the library has " + actual),
              std::string::npos)
        << problemsOf(host);
  }
  PluginHost host;
  auto modules = host.discover(folder.dir, {"memo"}, {}, {{"memo", actual}});
  EXPECT_TRUE(host.problems().empty()) << problemsOf(host);
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].activities.size(), 2u);
}

TEST(PluginHostTest, ConfigRefusesAPinThatIsNotASha256) {
  PluginFolder folder({});
  std::ofstream(folder.dir / "signet.json")
      << R"({"plugins": {"enabled": [], "pins": {"memo": "md5:abc"}}})";
  try {
    Config::load(folder.dir);
    FAIL() << "a bad pin was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "invalid field plugins.pins.memo: \"md5:abc\" is not sha256:<64 lower-case hex "
                  "digits>"),
              std::string::npos)
        << e.what();
  }
}

// Start-up stops on anything the host refused, naming it; so does a config naming a plugin that
// is not there.
TEST_P(PluginTest, StartupStopsOnAnyProblemNamingIt) {
  PluginFolder broken({{testPlugin("memo"), pluginFileName("memo")},
                       {brokenPlugin("notaplugin"), pluginFileName("notaplugin")}});
  struct Case {
    std::vector<std::string> enabled;
    fs::path dir;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {{"memo"}, broken.dir, "libsignet-plugin-notaplugin.so: not a Signet plugin"},
           {{"ghost"},
            SIGNET_TEST_PLUGIN_DIR,
            "plugin 'ghost' is enabled in the config (plugins.enabled) but was not found"},
       }) {
    try {
      TestGateway gw(GetParam(), c.enabled, c.dir);
      FAIL() << c.expected << ": the gateway started";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
    }
  }
}

TEST_P(PluginTest, DisabledPluginPathsAnswerAnErrorNamingThePlugin) {
  TestGateway gw(GetParam(), {}, SIGNET_TEST_PLUGIN_DIR);
  json::Object params = json::object();
  params->set("text", "x");
  for (const auto& [path, type, plugin] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO", "memo"},
           {"tripwire_submit", "ACTIVITY_TYPE_TRIPWIRE", "tripwire"}}) {
    try {
      gw.rootClient().submit(path, type, gw.root().organizationId, params);
      FAIL() << path;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 501);
      EXPECT_NE(std::string(e.what()).find("plugin '" + plugin + "'"), std::string::npos)
          << e.what();
    }
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

json::Object throwIn(const std::string& site) {
  json::Object settings = json::object();
  settings->set("throwIn", site);
  return settings;
}

TEST_P(PluginTest, APluginThatThrowsAtStartupIsNamedWithTheCause) {
  for (const auto& [site, expected] : std::vector<std::pair<std::string, std::string>>{
           {"registration",
            "plugin 'thrower' 0.0.1 failed to load or register: thrower failed on purpose in "
            "registration"},
           {"migration", "migration 1 of module 'thrower'"}}) {
    try {
      TestGateway gw(GetParam(), {"thrower"}, SIGNET_TEST_PLUGIN_DIR, {{"thrower", throwIn(site)}});
      FAIL() << site << ": the gateway started";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
          << site << ": " << e.what();
    }
  }
}

// Routes under /plugins/<name>: public ones answer anyone, stamped ones resolve the caller as
// queries do; a disabled plugin's prefix answers an error naming it.
TEST_P(PluginTest, PluginRoutesArePublicOrStampedUnderTheirPrefix) {
  TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
  auto about = httpGet(gw.baseUrl(), "/plugins/memo/about");
  EXPECT_EQ(about.status, 200);
  EXPECT_EQ(about.contentType, "text/plain; charset=utf-8");
  EXPECT_EQ(about.body, "memo: organization memos, served at /plugins/memo/about\n");

  json::Object memo = json::object();
  memo->set("text", "the newest memo");
  gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                         gw.root().organizationId, memo);
  json::Object body = json::object();
  body->set("organizationId", gw.root().organizationId);
  auto latest = gw.rootClient().post("/plugins/memo/latest", json::stringify(body));
  ASSERT_EQ(latest.status, 200) << latest.body;
  auto answer = json::parseObject(latest.body, "latest");
  EXPECT_EQ(answer->getValue<std::string>("askedBy"), gw.root().userId);
  EXPECT_EQ(answer->getValue<std::string>("text"), "the newest memo");

  // Unstamped, or stamped by another tenant: refused, and nothing of the memo is shown.
  auto unstamped =
      Client(gw.baseUrl(), nullptr).post("/plugins/memo/latest", json::stringify(body));
  EXPECT_EQ(unstamped.status, 401) << unstamped.body;
  auto [other, otherKey] = gw.createOrganization("Other");
  auto foreign = gw.clientWith(otherKey).post("/plugins/memo/latest", json::stringify(body));
  EXPECT_NE(foreign.status, 200);
  EXPECT_EQ(foreign.body.find("the newest memo"), std::string::npos) << foreign.body;
  // A GET on a stamped route, and a path the plugin does not serve.
  EXPECT_EQ(httpGet(gw.baseUrl(), "/plugins/memo/latest").status, 404);
  auto unknown = httpGet(gw.baseUrl(), "/plugins/memo/nothing");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("unknown path GET /plugins/memo/nothing"), std::string::npos);

  TestGateway without(GetParam(), {}, SIGNET_TEST_PLUGIN_DIR);
  auto disabled = httpGet(without.baseUrl(), "/plugins/memo/about");
  EXPECT_EQ(disabled.status, 501);
  EXPECT_NE(disabled.body.find("served by plugin 'memo', which is not enabled"), std::string::npos)
      << disabled.body;
}

// An activity's declared parameter shapes are checked before policies run: a malformed intent
// is a 400 naming the field, and no activity (nor evaluation) is stored, even where a policy
// would have denied it.
TEST_P(PluginTest, MalformedIntentsAreRefusedBeforePoliciesRun) {
  TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
  Org org(gw);
  std::string alice = org.user("alice");
  org.policy("no memos", "EFFECT_DENY", "activity.resource == 'MEMO'");
  int64_t before = gw.count("SELECT COUNT(*) FROM activities");
  auto submit = [&](const std::string& body) {
    return org.as(alice).post("/public/v1/submit/signet_create_memo", body);
  };
  auto intent = [&](const std::string& parameters) {
    return R"({"type":"ACTIVITY_TYPE_SIGNET_CREATE_MEMO","organizationId":")" + org.org() +
           R"(","timestampMs":")" + std::to_string(systemNowMs()) + R"(","parameters":)" +
           parameters + "}";
  };
  for (const auto& [parameters, expected] : std::vector<std::pair<std::string, std::string>>{
           {R"({"text":123})", "invalid field parameters.text: expected a string, got a number"},
           {R"({})", "missing required field parameters.text"},
           {R"({"text":""})", "invalid field parameters.text: must be 1 to 1024 bytes, got 0"},
           {R"({"text":")" + std::string(1025, 'x') + R"("})", "must be 1 to 1024 bytes, got 1025"},
       }) {
    auto r = submit(intent(parameters));
    EXPECT_EQ(r.status, 400) << parameters;
    EXPECT_NE(r.body.find(expected), std::string::npos) << r.body;
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), before);
  // A well-formed intent reaches the policies, which deny it (and that is recorded).
  auto denied = submit(intent(R"({"text":"fine"})"));
  EXPECT_EQ(denied.status, 200);
  EXPECT_NE(denied.body.find("ACTIVITY_STATUS_FAILED"), std::string::npos) << denied.body;
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), before + 1);
}

// A plugin's facts come with the keywords they fill: policies may read those, and no others,
// and a plugin may not claim one of the core's.
TEST_P(PluginTest, PolicyKeywordsComeFromTheEnabledPlugins) {
  {
    TestGateway gw(GetParam(), {"memo"}, SIGNET_TEST_PLUGIN_DIR);
    Org org(gw);
    EXPECT_NE(refusalOf([&] {
                return org.root().submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3",
                                         org.org(), [] {
                                           json::Object p = json::object();
                                           p->set("policyName", "p");
                                           p->set("effect", "EFFECT_ALLOW");
                                           p->set("condition", "thrower.anything == 1");
                                           p->set("notes", "");
                                           return p;
                                         }());
              }).find("unknown keyword 'thrower'"),
              std::string::npos);
  }
  {
    TestGateway gw(GetParam(), {"memo", "thrower"}, SIGNET_TEST_PLUGIN_DIR);
    Org org(gw);
    org.policy("reads the thrower's facts", "EFFECT_ALLOW", "thrower.anything == 1");
  }
  json::Object claimsActivity = json::object();
  claimsActivity->set("factKeyword", "activity");
  try {
    TestGateway gw(GetParam(), {"thrower"}, SIGNET_TEST_PLUGIN_DIR, {{"thrower", claimsActivity}});
    FAIL() << "a plugin claimed the core's keyword";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "module 'thrower' declares policy keyword 'activity', which belongs to the core"),
              std::string::npos)
        << e.what();
  }
}

// An activity's facts hook and its handler share one request cache (RequestContext::requestCache):
// what the facts kept, the handler finds, and nothing is left for the next request.
TEST_P(PluginTest, AnActivitysFactsHandTheirRequestCacheToItsHandler) {
  TestGateway gw(GetParam(), {"thrower"}, SIGNET_TEST_PLUGIN_DIR);
  Org org(gw);
  std::string alice = org.user("alice");
  org.policy("pings", "EFFECT_ALLOW", "activity.resource == 'THROWER'");
  auto factsRunsSeen = [](const json::Object& activity) {
    EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
        << json::stringify(activity);
    return activity->getObject("result")
        ->getObject("throwerPingResult")
        ->getValue<int>("factsRunsSeen");
  };
  auto ping = [](const std::string& text) {
    json::Object p = json::object();
    p->set("text", text);
    return p;
  };
  // Alice is governed by policies: the facts ran once, and the handler sees their count.
  EXPECT_EQ(factsRunsSeen(org.as(alice).submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING",
                                               org.org(), ping("first"))),
            1);
  // A second request starts with an empty cache: one run, not two.
  EXPECT_EQ(factsRunsSeen(org.as(alice).submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING",
                                               org.org(), ping("second"))),
            1);
  // The root quorum bypasses policies, so no facts are read and the cache is empty.
  EXPECT_EQ(factsRunsSeen(org.root().submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING", org.org(),
                                            ping("root"))),
            0);
}

// At run time the activity the plugin was part of fails, naming the plugin and the site, and the
// gateway goes on serving: the same plugin's other paths and other plugins alike.
TEST_P(PluginTest, APluginThatThrowsAtRunTimeFailsOnlyWhatItWasPartOf) {
  json::Object ping = json::object();
  ping->set("text", "hello");
  json::Object memo = json::object();
  memo->set("text", "still serving");
  auto submitPing = [&](TestGateway& gw) {
    return gw.rootClient().submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING",
                                  gw.root().organizationId, ping);
  };
  auto failureOf = [](const json::Object& activity) {
    EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED");
    auto failure = activity->getObject("failure");
    return failure ? failure->getValue<std::string>("message") : std::string();
  };
  auto stillServing = [&](TestGateway& gw, const std::string& site) {
    auto a = gw.rootClient().submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                                    gw.root().organizationId, memo);
    EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED") << site;
  };
  {
    TestGateway gw(GetParam(), {"memo", "thrower"}, SIGNET_TEST_PLUGIN_DIR,
                   {{"thrower", throwIn("handler")}});
    EXPECT_NE(failureOf(submitPing(gw))
                  .find("plugin 'thrower' failed in its handler of ACTIVITY_TYPE_THROWER_PING"),
              std::string::npos);
    stillServing(gw, "handler");
  }
  // Policy facts are gathered for a user whom policies govern (the root quorum bypasses them):
  // the provider for every activity, then the activity's own.
  for (const auto& [site, expected] :
       {std::pair{"facts", "plugin 'thrower' failed in its policy facts ("},
        std::pair{"activityFacts",
                  "plugin 'thrower' failed in its policy facts of ACTIVITY_TYPE_THROWER_PING ("}}) {
    TestGateway gw(GetParam(), {"memo", "thrower"}, SIGNET_TEST_PLUGIN_DIR,
                   {{"thrower", throwIn(site)}});
    Org org(gw);
    std::string alice = org.user("alice");
    org.policy("pings", "EFFECT_ALLOW", "activity.resource == 'THROWER'");
    auto a = org.as(alice).submit("thrower_ping", "ACTIVITY_TYPE_THROWER_PING", org.org(), ping);
    EXPECT_NE(failureOf(a).find(expected), std::string::npos) << site << json::stringify(a);
    stillServing(gw, site);
  }
  {
    TestGateway gw(GetParam(), {"memo", "thrower"}, SIGNET_TEST_PLUGIN_DIR,
                   {{"thrower", throwIn("query")}});
    json::Object q = json::object();
    q->set("organizationId", gw.root().organizationId);
    try {
      gw.rootClient().query("thrower_count", q);
      FAIL() << "the query answered";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 500);
      EXPECT_NE(std::string(e.what()).find("plugin 'thrower' failed in its query thrower_count"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(submitPing(gw)->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
    stillServing(gw, "query");
  }
  {
    TestGateway gw(GetParam(), {"memo", "thrower"}, SIGNET_TEST_PLUGIN_DIR,
                   {{"thrower", throwIn("event")}});
    json::Object feature = json::object();
    feature->set("name", "FEATURE_NAME_EMAIL_AUTH");
    feature->set("value", "true");
    auto a =
        gw.rootClient().submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                               gw.root().organizationId, feature);
    EXPECT_NE(failureOf(a).find("plugin 'thrower' failed in its subscriber to "
                                "organization.feature_set"),
              std::string::npos);
    // The feature's own write was rolled back with the activity.
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organization_features"), 0);
    stillServing(gw, "event");
  }
}

// An interest query is bound to two values, the organization and its parent: one naming more or
// fewer is refused when it is registered, naming the query, instead of failing every activity.
TEST(ModuleRegistryTest, AnActivityEventInterestQueryTakesTheOrganizationAndItsParent) {
  ModuleInfo module;
  module.name = "mine";
  ModuleRegistry registry(module, ModuleEnvironment{});
  auto handler = [](RequestContext&, const ActivityEvent&) {};
  const std::string one = "SELECT 1 FROM mine_subscribers WHERE organization_id = ? LIMIT 1";
  try {
    registry.activityEvents({.handler = handler, .interestQuery = one});
    FAIL() << "a query with one parameter was registered";
  } catch (const Error& e) {
    const std::string why = e.what();
    for (const std::string& part : {std::string("'mine'"), std::string("exactly two"), one})
      EXPECT_NE(why.find(part), std::string::npos) << why;
  }
  EXPECT_FALSE(module.activityEvents.handler);
  const std::string two = "SELECT 1 FROM mine_subscribers WHERE organization_id IN (?, ?) LIMIT 1";
  registry.activityEvents({.handler = handler, .interestQuery = two});
  EXPECT_TRUE(module.activityEvents.handler);
  EXPECT_EQ(module.activityEvents.interestQuery, two);
}

}  // namespace
}  // namespace signet::test
