// signet org create: a root organization with one root user holding one API key.
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"
#include "tenancy/bootstrap.hpp"

namespace signet::cli {

int orgCreateCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "name", "user-name", "api-public-key", "api-curve"}, {});
  std::filesystem::path dir = args.require("data-dir");
  std::string name = args.require("name");
  std::string userName = args.require("user-name");
  std::string curve = args.get("api-curve").value_or("API_KEY_CURVE_P256");
  Config config = Config::load(dir, args.get("config").value_or(""));
  Gateway gateway(config);

  std::string publicKey;
  std::filesystem::path pendingKeyFile;
  if (auto given = args.get("api-public-key")) {
    publicKey = *given;
  } else {
    if (curve != "API_KEY_CURVE_P256")
      throw UsageError("without --api-public-key only API_KEY_CURVE_P256 keys are generated");
    auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
    publicKey = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
    // Written (0600) before the organization exists, renamed once it does.
    pendingKeyFile = dir / (".pending-" + crypto::uuidV4() + ".api-key");
    mode_t old = ::umask(077);
    std::string hex = toHex(priv.bytes());
    std::ofstream(pendingKeyFile) << hex << "\n";
    crypto::wipe(hex.data(), hex.size());
    ::umask(old);
  }
  BootstrapResult r;
  try {
    gateway.database().transaction([&](Db& db) {
      r = createRootOrganization(db, name, userName, publicKey, curve, gateway.nowMs());
    });
  } catch (...) {
    if (!pendingKeyFile.empty()) std::filesystem::remove(pendingKeyFile);
    throw;
  }
  if (!pendingKeyFile.empty()) {
    auto keyFile = dir / (r.organizationId + ".api-key");
    std::filesystem::rename(pendingKeyFile, keyFile);
    std::cerr << "generated a P-256 API key: private key in " << keyFile.string()
              << " (mode 0600), public key " << publicKey << "\n";
  }
  std::cout << "{\"organizationId\":\"" << r.organizationId << "\",\"userId\":\"" << r.userId
            << "\",\"apiKeyId\":\"" << r.apiKeyId << "\"}" << std::endl;
  return 0;
}

}  // namespace signet::cli
