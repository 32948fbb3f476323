// The operator's commands and the proxy on its own: `signet auth-proxy enable|configure|show|
// disable` on a data directory with and without a gateway serving it, the embedded proxy that
// `signet serve` announces, and `signet auth-proxy serve` in a process of its own in front of
// that gateway, reaching it only through the public API.
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "proxy_fixture.hpp"
#include "support/signet_cli.hpp"
#include "support/test_certificate.hpp"

namespace signet::test {
namespace {

namespace fs = std::filesystem;

// `signet auth-proxy serve ...` as its own process; the URL it announces.
class StandaloneProxy {
 public:
  explicit StandaloneProxy(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"auth-proxy", "serve", "--listen", "127.0.0.1:0"};
    all.insert(all.end(), args.begin(), args.end());
    Poco::Process::Env env{{"SIGNET_LOG_LEVEL", "warning"}};
    handle_ = std::make_unique<Poco::ProcessHandle>(
        Poco::Process::launch(SIGNET_BINARY, all, {}, nullptr, &out_, nullptr, env));
    std::string line;
    for (char c; out_.readBytes(&c, 1) == 1 && c != '\n';) line += c;
    line_ = line;
  }
  ~StandaloneProxy() {
    try {
      Poco::Process::requestTermination(handle_->id());
    } catch (const Poco::Exception&) {  // it ended by itself (a refused start)
    }
    handle_->wait();
  }
  const std::string& line() const { return line_; }
  std::string url() const {
    auto at = line_.find("http://");
    return at == std::string::npos ? "" : line_.substr(at);
  }

 private:
  Poco::Pipe out_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  std::string line_;
};

json::Object lastLineJson(const CliRun& r) {
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  return json::parseObject(r.out, "command output");
}

void writeFile(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
}

// Sets plugins.settings in the data directory's config.
void setSettings(const fs::path& dir, const std::string& settingsJson) {
  std::ifstream in(dir / "signet.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto config = json::parseObject(text, "signet.json");
  config->getObject("plugins")->set("settings", json::parseObject(settingsJson, "settings"));
  writeFile(dir / "signet.json", json::stringify(config));
}

TEST(AuthProxyCli, EnableConfigureShowDisableAndAProxyInAProcessOfItsOwn) {
  fs::path dir = fs::temp_directory_path() / ("signet-proxy-cli-" + crypto::uuidV4());
  ASSERT_EQ(
      runSignet({"init", "--data-dir", dir.string(), "--plugins", "sessions,auth-proxy"}).exitCode,
      0);
  auto org = lastLineJson(runSignet(
      {"org", "create", "--data-dir", dir.string(), "--name", "Shop", "--user-name", "owner"}));
  std::string orgId = org->getValue<std::string>("organizationId");

  // The standalone proxy's service key, trusted by the coordinator's settings.
  fs::path keyFile = dir / "proxy-service.key";
  auto generated = lastLineJson(runSignet({"auth-proxy", "keygen", "--out", keyFile.string()}));
  EXPECT_EQ(fs::status(keyFile).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fs::path strangerKey = dir / "stranger.key";
  ASSERT_EQ(runSignet({"auth-proxy", "keygen", "--out", strangerKey.string()}).exitCode, 0);
  setSettings(dir, R"({"sessions":{"email":{"transport":"outbox"}},
      "auth-proxy":{"listen":"127.0.0.1:0","configCacheSeconds":0,"trustedProxyKeys":[")" +
                       generated->getValue<std::string>("publicKey") + R"("]}})");

  // Enabled with no gateway running.
  auto enabled = lastLineJson(
      runSignet({"auth-proxy", "enable", "--data-dir", dir.string(), "--organization", orgId}));
  std::string configId = enabled->getValue<std::string>("configId");
  EXPECT_FALSE(enabled->getValue<std::string>("userId").empty());
  // Refusals name what is wrong and change nothing.
  auto unknownOrg = runSignet(
      {"auth-proxy", "enable", "--data-dir", dir.string(), "--organization", crypto::uuidV4()});
  EXPECT_NE(unknownOrg.exitCode, 0);
  EXPECT_NE(unknownOrg.err.find("not found"), std::string::npos) << unknownOrg.err;
  writeFile(dir / "bad.json", R"({"allowedOrigins":["https://*.shop.example"]})");
  auto bad = runSignet({"auth-proxy", "configure", "--data-dir", dir.string(), "--organization",
                        orgId, "--file", (dir / "bad.json").string()});
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("partial wildcard"), std::string::npos) << bad.err;

  {
    ServeProcess gateway(dir.string());
    EXPECT_EQ(gateway.nextLine().rfind("auth proxy listening on http://127.0.0.1:", 0), 0u);
    // Configured while the gateway serves the store.
    writeFile(dir / "proxy.json", R"({"allowedOrigins":["https://shop.example"],
        "emailCustomizationParams":{"appName":"Shop"},"sessionExpirationSeconds":600})");
    auto configured =
        lastLineJson(runSignet({"auth-proxy", "configure", "--data-dir", dir.string(),
                                "--organization", orgId, "--file", (dir / "proxy.json").string()}));
    EXPECT_EQ(configured->getValue<std::string>("configId"), configId);
    auto shown = lastLineJson(
        runSignet({"auth-proxy", "show", "--data-dir", dir.string(), "--organization", orgId}));
    auto config = shown->getObject("config");
    EXPECT_TRUE(config->getValue<bool>("enabled"));
    EXPECT_EQ(config->getObject("settings")->getValue<int>("sessionExpirationSeconds"), 600);
    EXPECT_EQ(shown->has("sealedApiKey"), false);

    // The proxy alone, in front of the gateway: no data directory, only the coordinator's URL.
    writeFile(dir / "standalone.json", R"({"configCacheSeconds":0})");
    StandaloneProxy alone({"--coordinator", gateway.baseUrl(), "--service-key", keyFile.string(),
                           "--settings", (dir / "standalone.json").string()});
    ASSERT_EQ(alone.line().rfind("auth proxy listening on http://127.0.0.1:", 0), 0u)
        << alone.line();
    ProxyClient proxy(alone.url(), configId, "https://shop.example");
    auto kit = proxy.send("/v1/wallet_kit_config", "");
    ASSERT_EQ(kit.status, 200) << kit.body;
    EXPECT_EQ(json::parseObject(kit.body, "kit")->getValue<std::string>("organizationId"), orgId);
    EXPECT_EQ(json::parseObject(kit.body, "kit")->getValue<std::string>("sessionExpirationSeconds"),
              "600");
    // A whole sign-up and login through it: email OTP (FEATURE_NAME_OTP_EMAIL_AUTH is set with
    // the root key the CLI wrote), the code from the outbox.
    auto credentials = json::parseObject(
        [&] {
          std::ifstream in(dir / (orgId + ".api-key.json"));
          return std::string((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
        }(),
        "credentials");
    Client root(gateway.baseUrl(),
                ApiKeyStamper::fromHex(credentials->getValue<std::string>("apiPrivateKey")));
    // The operator's changes are activities of the organization, like the API's.
    json::Object q = orgBody(orgId);
    q->set("filterByType", json::stringArray({"ACTIVITY_TYPE_ENABLE_AUTH_PROXY",
                                              "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG"}));
    auto recorded = root.query("list_activities", q)->getArray("activities");
    ASSERT_EQ(recorded->size(), 2u);
    EXPECT_EQ(recorded->getObject(0)->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
    json::Object feature = json::object();
    feature->set("name", "FEATURE_NAME_OTP_EMAIL_AUTH");
    feature->set("value", "");
    ASSERT_EQ(root.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
                          orgId, feature)
                  ->getValue<std::string>("status"),
              "ACTIVITY_STATUS_COMPLETED");
    json::Object init = json::object();
    init->set("otpType", "OTP_TYPE_EMAIL");
    init->set("contact", "buyer@shop.example");
    std::string otpId = proxy.ok("/v1/otp_init", init)->getValue<std::string>("otpId");
    std::string code;
    for (int i = 0; i < 50 && code.empty(); ++i) {
      for (const auto& e : fs::directory_iterator(dir / "outbox")) {
        std::ifstream in(e.path());
        code = codeIn(
            std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
      }
      if (code.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_FALSE(code.empty());
    auto key = newSessionKey();
    json::Object verify = json::object();
    verify->set("otpId", otpId);
    verify->set("otpCode", code);
    verify->set("publicKey", key.publicKey);
    std::string token =
        proxy.ok("/v1/otp_verify", verify)->getValue<std::string>("verificationToken");
    json::Object signup = json::object();
    signup->set("userEmail", "buyer@shop.example");
    signup->set("verificationToken", token);
    signup->set("apiKeys", json::array());
    signup->set("authenticators", json::array());
    signup->set("oauthProviders", json::array());
    std::string subOrg = proxy.ok("/v1/signup_v2", signup)->getValue<std::string>("organizationId");
    EXPECT_NE(subOrg, orgId);

    // A proxy whose key the coordinator does not trust gets nothing.
    StandaloneProxy untrusted(
        {"--coordinator", gateway.baseUrl(), "--service-key", strangerKey.string()});
    ProxyClient refused(untrusted.url(), configId, "https://shop.example");
    auto r = refused.refused("/v1/wallet_kit_config", json::object());
    EXPECT_EQ(r.status, 503);
    EXPECT_NE(r.message.find("trustedProxyKeys"), std::string::npos) << r.message;

    // Disabled from the CLI while both run: the standalone proxy refuses at once.
    ASSERT_EQ(
        runSignet({"auth-proxy", "disable", "--data-dir", dir.string(), "--organization", orgId})
            .exitCode,
        0);
    auto off = proxy.refused("/v1/wallet_kit_config", json::object());
    EXPECT_EQ(off.status, 403);
    EXPECT_NE(off.message.find("disabled"), std::string::npos) << off.message;
    auto shownOff = lastLineJson(
        runSignet({"auth-proxy", "show", "--data-dir", dir.string(), "--organization", orgId}));
    EXPECT_FALSE(shownOff->getObject("config")->getValue<bool>("enabled"));
  }
  // A service key file others may read is refused.
  fs::permissions(keyFile, fs::perms::group_read, fs::perm_options::add);
  StandaloneProxy careless(
      {"--coordinator", "http://127.0.0.1:1", "--service-key", keyFile.string()});
  EXPECT_EQ(careless.line(), "");
  fs::remove_all(dir);
}

// A coordinator serving HTTPS with a certificate of a private CA: the standalone proxy given that
// CA (--coordinator-ca) verifies it and serves; given another CA, or none (the system's alone),
// it refuses to start, saying which coordinator, which CAs and why.
TEST(AuthProxyCli, AnHttpsCoordinatorIsVerifiedAndAWrongCaIsRefused) {
  fs::path dir = fs::temp_directory_path() / ("signet-proxy-tls-" + crypto::uuidV4());
  fs::create_directories(dir / "ca");
  fs::create_directories(dir / "other-ca");
  auto ca = makeTestCa(dir / "ca");
  auto otherCa = makeTestCa(dir / "other-ca");
  makeServerCertificate(ca, "coordinator", dir / "server.pem", dir / "server.key");
  fs::path data = dir / "data";
  ASSERT_EQ(
      runSignet({"init", "--data-dir", data.string(), "--plugins", "sessions,auth-proxy"}).exitCode,
      0);
  auto org = lastLineJson(runSignet(
      {"org", "create", "--data-dir", data.string(), "--name", "Shop", "--user-name", "owner"}));
  std::string orgId = org->getValue<std::string>("organizationId");
  fs::path keyFile = dir / "proxy-service.key";
  auto generated = lastLineJson(runSignet({"auth-proxy", "keygen", "--out", keyFile.string()}));
  setSettings(data, R"({"auth-proxy":{"listen":"127.0.0.1:0","trustedProxyKeys":[")" +
                        generated->getValue<std::string>("publicKey") + R"("]}})");
  std::string configId = lastLineJson(runSignet({"auth-proxy", "enable", "--data-dir",
                                                 data.string(), "--organization", orgId}))
                             ->getValue<std::string>("configId");

  ServeProcess gateway(data.string(), {"--tls-cert", (dir / "server.pem").string(), "--tls-key",
                                       (dir / "server.key").string()});
  ASSERT_EQ(gateway.baseUrl().rfind("https://127.0.0.1:", 0), 0u) << gateway.baseUrl();
  {
    StandaloneProxy alone({"--coordinator", gateway.baseUrl(), "--coordinator-ca", ca.cert.string(),
                           "--service-key", keyFile.string()});
    ASSERT_EQ(alone.line().rfind("auth proxy listening on http://127.0.0.1:", 0), 0u)
        << alone.line();
    auto kit = ProxyClient(alone.url(), configId, std::nullopt).send("/v1/wallet_kit_config", "");
    ASSERT_EQ(kit.status, 200) << kit.body;
    EXPECT_EQ(json::parseObject(kit.body, "kit")->getValue<std::string>("organizationId"), orgId);
  }
  for (const auto& trusted : std::vector<std::string>{otherCa.cert.string(), ""}) {
    std::vector<std::string> args = {"auth-proxy",    "serve",         "--listen",
                                     "127.0.0.1:0",   "--coordinator", gateway.baseUrl(),
                                     "--service-key", keyFile.string()};
    if (!trusted.empty()) args.insert(args.end(), {"--coordinator-ca", trusted});
    auto refused = runSignet(args);
    EXPECT_EQ(refused.exitCode, 1) << refused.out;
    EXPECT_EQ(refused.out, "");  // it never listened
    EXPECT_NE(refused.err.find("refusing the coordinator " + gateway.baseUrl()), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("certificate verify failed"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("checked against the system's trusted CAs" +
                               (trusted.empty() ? std::string(":") : " and " + trusted)),
              std::string::npos)
        << refused.err;
  }
  // A CA file that cannot be read is refused as such.
  auto unreadable = runSignet({"auth-proxy", "serve", "--listen", "127.0.0.1:0", "--coordinator",
                               gateway.baseUrl(), "--coordinator-ca", (dir / "absent.pem").string(),
                               "--service-key", keyFile.string()});
  EXPECT_EQ(unreadable.exitCode, 1);
  EXPECT_NE(unreadable.err.find("cannot use the CA file '" + (dir / "absent.pem").string() + "'"),
            std::string::npos)
      << unreadable.err;
  EXPECT_EQ(gateway.stop(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
