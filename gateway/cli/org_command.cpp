// signet org create: a root organization with one root user holding one API key.
//
// Without --api-public-key it generates the key and writes a credentials file that a client
// can use as it is: its field names are those of @turnkey/sdk-server's configuration
// (apiBaseUrl, apiPublicKey, apiPrivateKey, defaultOrganizationId), so
// `new Turnkey(JSON.parse(file))` works, and @turnkey/api-key-stamper takes the same object.
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"
#include "tenancy/bootstrap.hpp"

namespace signet::cli {
namespace {

// The one place the private key is written: {apiBaseUrl, apiPublicKey, apiPrivateKey,
// defaultOrganizationId, userId, apiKeyId}, created with mode 0600 (umask 077) so it is never
// readable by others, not even for a moment.
void writeCredentialsFile(const std::filesystem::path& file, const std::string& baseUrl,
                          const BootstrapResult& r, const std::string& publicKey,
                          const crypto::SecretBytes& key) {
  json::Object o = json::object();
  o->set("apiBaseUrl", baseUrl);
  o->set("defaultOrganizationId", r.organizationId);
  o->set("userId", r.userId);
  o->set("apiKeyId", r.apiKeyId);
  o->set("apiPublicKey", publicKey);
  // The private key is spliced into the text rather than set on the object, so that no copy
  // of it is left behind in a JSON value that is never wiped.
  std::string text = json::stringify(o);
  crypto::WipeOnExit wipeText(text);
  text.pop_back();  // the closing brace
  std::string hex = toHex(key.bytes());
  crypto::WipeOnExit wipeHex(hex);
  text.reserve(text.size() + hex.size() + 32);  // appending must not leave a moved-from copy
  text.append(",\"apiPrivateKey\":\"").append(hex).append("\"}");
  mode_t old = ::umask(077);
  std::ofstream out(file);
  out << text << "\n";
  out.close();
  ::umask(old);
  if (!out) throw std::runtime_error("could not write " + file.string());
}

}  // namespace

int orgCreateCommand(const std::vector<std::string>& argv) {
  Args args(argv,
            {"data-dir", "config", "name", "user-name", "api-public-key", "api-curve", "base-url"},
            {});
  std::filesystem::path dir = args.require("data-dir");
  std::string name = args.require("name");
  std::string userName = args.require("user-name");
  std::string curve = args.get("api-curve").value_or("API_KEY_CURVE_P256");
  Config config = Config::load(dir, args.get("config").value_or(""));
  std::string baseUrl = args.get("base-url").value_or("http://" + config.listen);
  if (baseUrl.rfind("http://", 0) != 0 && baseUrl.rfind("https://", 0) != 0)
    throw UsageError("--base-url must start with http:// or https://, not '" + baseUrl + "'");
  Gateway gateway(config);

  std::string publicKey;
  std::optional<crypto::SecretBytes> generated;
  if (auto given = args.get("api-public-key")) {
    publicKey = *given;
  } else {
    if (curve != "API_KEY_CURVE_P256")
      throw UsageError("without --api-public-key only API_KEY_CURVE_P256 keys are generated");
    generated = crypto::generatePrivateKey(crypto::Curve::kP256);
    publicKey = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, *generated));
  }
  // The file is written (0600) before the organization exists and renamed once it does, so a
  // failure leaves neither an organization whose key was lost nor a stray key file.
  std::filesystem::path pendingKeyFile;
  BootstrapResult r;
  try {
    gateway.database().transaction([&](Db& db) {
      r = createRootOrganization(db, name, userName, publicKey, curve, gateway.nowMs());
      if (generated) {
        pendingKeyFile = dir / (".pending-" + crypto::uuidV4() + ".api-key.json");
        writeCredentialsFile(pendingKeyFile, baseUrl, r, publicKey, *generated);
      }
    });
  } catch (...) {
    if (!pendingKeyFile.empty()) std::filesystem::remove(pendingKeyFile);
    throw;
  }
  if (generated) {
    auto keyFile = dir / (r.organizationId + ".api-key.json");
    std::filesystem::rename(pendingKeyFile, keyFile);
    std::cerr << "generated a P-256 API key: credentials for " << baseUrl << " in "
              << keyFile.string() << " (mode 0600), public key " << publicKey << "\n";
  }
  std::cout << "{\"organizationId\":\"" << r.organizationId << "\",\"userId\":\"" << r.userId
            << "\",\"apiKeyId\":\"" << r.apiKeyId << "\"}" << std::endl;
  return 0;
}

}  // namespace signet::cli
