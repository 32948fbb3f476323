// The master key in a PKCS#11 token, against SoftHSM (Debian's softhsm2) as the HSM: a fresh
// token, signet keys wrap-master making a sensitive, non-extractable AES key in it and wrapping
// the store's key, the plain key file gone, and signet serve opening every secret through the
// token (a stamped request needs the signer key), and a rotation through the token. A wrong
// PIN, a missing token and the environment key beside the token are refused, each named.
#include <Poco/Process.h>

#include <cstdlib>
#include <fstream>

#include "store/keyring.hpp"
#include "store/pkcs11_token.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

const char* kModule = "/usr/lib/softhsm/libsofthsm2.so";

// A SoftHSM token directory of its own, named by SOFTHSM2_CONF for this process and the
// signet processes it starts.
struct SoftHsm {
  std::filesystem::path dir;
  explicit SoftHsm(const std::filesystem::path& base) : dir(base / "softhsm") {
    std::filesystem::create_directories(dir / "tokens");
    std::ofstream(dir / "softhsm2.conf") << "directories.tokendir = " << (dir / "tokens").string()
                                         << "\nobjectstore.backend = file\nlog.level = ERROR\n";
    setenv("SOFTHSM2_CONF", (dir / "softhsm2.conf").c_str(), 1);
    auto init = Poco::Process::launch(
        "softhsm2-util",
        {"--init-token", "--free", "--label", "signet-test", "--pin", "4321", "--so-pin", "8765"});
    if (init.wait() != 0) throw std::runtime_error("softhsm2-util --init-token failed");
  }
};

void setHsmConfig(const std::filesystem::path& dataDir, const std::string& token) {
  auto file = dataDir / "signet.json";
  auto config = json::parseObject(readTextFile(file.string()), file.string());
  json::Object hsm = json::object();
  hsm->set("module", kModule);
  hsm->set("token", token);
  hsm->set("key", "signet-master-key");
  hsm->set("pinEnv", "SIGNET_TEST_PKCS11_PIN");
  config->set("masterKeyPkcs11", hsm);
  std::ofstream(file) << json::stringify(config);
}

TEST(Pkcs11Test, TheMasterKeyIsWrappedByANonExtractableTokenKey) {
  ASSERT_TRUE(std::filesystem::exists(kModule)) << "install softhsm2 (scripts/setup.sh does)";
  auto base = std::filesystem::temp_directory_path() / ("signet-hsm-" + crypto::uuidV4());
  SoftHsm hsm(base);
  auto dataDir = base / "data";
  ASSERT_EQ(runSignet({"init", "--data-dir", dataDir.string(), "--plugins", "memo"}).exitCode, 0);
  const auto org = createOrganizationWithCli(dataDir.string());
  std::string plainKey = readTextFile((dataDir / "master.key").string());
  while (!plainKey.empty() && plainKey.back() == '\n') plainKey.pop_back();
  setHsmConfig(dataDir, "signet-test");

  // Without the PIN, and with a wrong one: refused, naming the variable or the login.
  unsetenv("SIGNET_TEST_PKCS11_PIN");
  auto noPin = runSignet({"keys", "wrap-master", "--data-dir", dataDir.string()});
  EXPECT_NE(noPin.exitCode, 0);
  EXPECT_NE(noPin.err.find("SIGNET_TEST_PKCS11_PIN"), std::string::npos) << noPin.err;
  setenv("SIGNET_TEST_PKCS11_PIN", "1111", 1);
  auto wrongPin = runSignet({"keys", "wrap-master", "--data-dir", dataDir.string()});
  EXPECT_NE(wrongPin.exitCode, 0);
  EXPECT_NE(wrongPin.err.find("C_Login failed (CKR_PIN_INCORRECT)"), std::string::npos)
      << wrongPin.err;
  EXPECT_TRUE(std::filesystem::exists(dataDir / "master.key"));  // nothing changed

  setenv("SIGNET_TEST_PKCS11_PIN", "4321", 1);
  auto wrap = runSignet({"keys", "wrap-master", "--data-dir", dataDir.string()});
  ASSERT_EQ(wrap.exitCode, 0) << wrap.err;
  EXPECT_FALSE(std::filesystem::exists(dataDir / "master.key"));
  auto wrapped = readTextFile((dataDir / "master.key.wrapped").string());
  EXPECT_EQ(wrapped.find(plainKey), std::string::npos);
  EXPECT_EQ(std::filesystem::status(dataDir / "master.key.wrapped").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  // The token's key: there, and its value is not handed out.
  {
    Pkcs11Token token({kModule, "signet-test", "signet-master-key", "SIGNET_TEST_PKCS11_PIN"});
    EXPECT_TRUE(token.hasKey());
    EXPECT_FALSE(token.keyValueReadable());
    // The wrapped key opens through the token to the key that was in the file.
    EXPECT_EQ(toHex(MasterKey::load(dataDir / "master.key",
                                    Pkcs11Settings{kModule, "signet-test", "signet-master-key",
                                                   "SIGNET_TEST_PKCS11_PIN"})
                        .bytes()),
              plainKey);
  }

  // The gateway serves through the token: a stamped whoami needs the keyring's signer key only
  // for what it returns, so a stamped activity is made too.
  {
    ServeProcess serve(dataDir.string());
    ASSERT_EQ(serve.baseUrl().rfind("http://127.0.0.1:", 0), 0u) << serve.baseUrl();
    const std::string& orgId = org.organizationId;
    Client client(serve.baseUrl(), ApiKeyStamper::fromHex(org.apiPrivateKey));
    EXPECT_EQ(client.query("whoami", orgBody(orgId))->getValue<std::string>("organizationId"),
              orgId);
    json::Object memo = json::object();
    memo->set("text", "through the token");
    auto activity =
        client.submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO", orgId, memo);
    EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
    EXPECT_EQ(serve.stop(), 0);
  }
  // The signer's key opens from the keyring with the key from the token (keys show reads it).
  EXPECT_EQ(runSignet({"keys", "show", "--data-dir", dataDir.string()}).exitCode, 0);

  // The environment key beside the token, and a token that is not there: refused.
  setenv("SIGNET_MASTER_KEY", plainKey.c_str(), 1);
  auto both = runSignet({"keys", "show", "--data-dir", dataDir.string()});
  unsetenv("SIGNET_MASTER_KEY");
  EXPECT_NE(both.exitCode, 0);
  EXPECT_NE(both.err.find("SIGNET_MASTER_KEY is set"), std::string::npos) << both.err;
  // Rotation through the token: a new key, wrapped; the old one kept wrapped beside it; every
  // secret opens under the new one.
  auto before = readTextFile((dataDir / "master.key.wrapped").string());
  auto rotate = runSignet({"keys", "rotate-master", "--data-dir", dataDir.string()});
  EXPECT_EQ(rotate.exitCode, 0) << rotate.err;
  EXPECT_NE(readTextFile((dataDir / "master.key.wrapped").string()), before);
  const Pkcs11Settings settings{kModule, "signet-test", "signet-master-key",
                                "SIGNET_TEST_PKCS11_PIN"};
  EXPECT_EQ(toHex(MasterKey::readWrapped(dataDir / "master.key.wrapped.old", settings).bytes()),
            plainKey);
  EXPECT_NE(toHex(MasterKey::readWrapped(dataDir / "master.key.wrapped", settings).bytes()),
            plainKey);
  EXPECT_FALSE(std::filesystem::exists(dataDir / "master.key"));
  EXPECT_EQ(runSignet({"keys", "show", "--data-dir", dataDir.string()}).exitCode, 0);
  setHsmConfig(dataDir, "no-such-token");
  auto missing = runSignet({"keys", "show", "--data-dir", dataDir.string()});
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("no PKCS#11 token labelled 'no-such-token'"), std::string::npos)
      << missing.err;
  unsetenv("SIGNET_TEST_PKCS11_PIN");
  std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace signet::test
