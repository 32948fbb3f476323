// The configuration file: what `signet init` writes, and the checks Config::load makes of the
// outbound-call bounds against the request threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/config.hpp"
#include "signet/crypto.hpp"
#include "signet/public_issuers.hpp"

namespace signet::test {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("signet-config-" + crypto::uuidV4());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The config `signet init` writes for `plugins`, with `limits` in place of its limits.
  Config loadWith(const std::vector<std::string>& plugins, const std::string& limits = "") {
    auto root = json::parseObject(Config::defaultFileText(plugins), "default config");
    if (!limits.empty()) root->set("limits", json::parseObject(limits, "limits"));
    std::ofstream(dir_ / "signet.json") << json::stringify(root);
    return Config::load(dir_);
  }
  std::string refusal(const std::string& limits) {
    try {
      loadWith({"memo"}, limits);
    } catch (const Error& e) {
      return e.what();
    }
    return "loaded";
  }
  std::filesystem::path dir_;
};

TEST_F(ConfigTest, InitWritesTheTrustedIssuersWhenSessionsIsEnabled) {
  Config withSessions = loadWith({"memo", "sessions"});
  auto oidc = withSessions.pluginSettings.at("sessions")->getObject("oidc");
  ASSERT_TRUE(oidc);
  auto listed = oidc->getArray("trustedIssuers");
  ASSERT_TRUE(listed);
  std::vector<std::string> issuers;
  for (size_t i = 0; i < listed->size(); ++i) issuers.push_back(listed->getElement<std::string>(i));
  EXPECT_EQ(issuers, publicOidcIssuers());
  EXPECT_EQ(loadWith({"memo"}).pluginSettings.count("sessions"), 0u);
}

TEST_F(ConfigTest, TrustedProxiesAreNetworksAndABadOneIsRefusedNamingIt) {
  auto withServer = [&](const std::string& server) {
    auto root = json::parseObject(Config::defaultFileText({"memo"}), "default config");
    root->set("server", json::parseObject(server, "server"));
    std::ofstream(dir_ / "signet.json") << json::stringify(root);
    return Config::load(dir_);
  };
  Config c = withServer(R"({"trustedProxies": ["10.0.0.0/8", "::1", "fd00::/8"]})");
  ASSERT_EQ(c.server.trustedProxies.size(), 3u);
  EXPECT_EQ(c.server.trustedProxies[1].prefix, 128);
  EXPECT_TRUE(loadWith({"memo"}).server.trustedProxies.empty());
  for (const std::string bad : {"10.0.0.0/33", "300.1.1.1/8", "", "proxy.example", "10.1.2.3/8"}) {
    try {
      withServer(R"({"trustedProxies": ["127.0.0.1", ")" + bad + R"("]})");
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_NE(
          std::string(e.what()).find("server.trustedProxies[1]: \"" + bad + "\" is not a CIDR"),
          std::string::npos)
          << e.what();
    }
  }
}

TEST_F(ConfigTest, OutboundCallsForRequestsStayBelowTheThreads) {
  Config defaults = loadWith({"memo"});
  EXPECT_EQ(defaults.server.egress.maxConcurrent, 8);
  EXPECT_EQ(defaults.server.egress.maxPerDestination, 4);
  // A small thread count takes the default down with it, to half the threads.
  EXPECT_EQ(loadWith({"memo"}, R"({"threads": 6})").server.egress.maxConcurrent, 3);
  EXPECT_EQ(loadWith({"memo"}, R"({"threads": 1})").server.egress.maxConcurrent, 1);
  // A value the operator gives must stay below the threads.
  std::string m = refusal(R"({"threads": 6, "egress": {"maxConcurrent": 6}})");
  EXPECT_NE(m.find("limits.egress.maxConcurrent"), std::string::npos) << m;
  EXPECT_NE(m.find("limits.threads (6)"), std::string::npos) << m;
  EXPECT_EQ(loadWith({"memo"}, R"({"threads": 6, "egress": {"maxConcurrent": 5}})")
                .server.egress.maxConcurrent,
            5);
  m = refusal(R"({"egress": {"maxPerDestination": 0}})");
  EXPECT_NE(m.find("limits.egress.maxPerDestination"), std::string::npos) << m;
}

TEST_F(ConfigTest, ThreadsRunningAtOnceAreTwoACoreUnlessGiven) {
  EXPECT_EQ(loadWith({"memo"}).threadsRunning, 0);  // the server sizes it: two a core
  EXPECT_EQ(loadWith({"memo"}, R"({"threadsRunning": 12})").threadsRunning, 12);
  for (const std::string bad : {"-1", "1025", "\"4\"", "2.5"}) {
    std::string m = refusal(R"({"threadsRunning": )" + bad + "}");
    EXPECT_NE(m.find("invalid field limits.threadsRunning"), std::string::npos) << m;
    EXPECT_NE(m.find(", got " + bad), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace signet::test
