// signet init: the data directory with its config, SQLite database, master key (0600) and
// the gateway signer key (sealed in the keyring).
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/serve_lock.hpp"
#include "gateway.hpp"
#include "plugins/plugin_host.hpp"
#include "store/keyring.hpp"
#include "store/master_key_rotation.hpp"

namespace signet::cli {

namespace {
// The plugins found (from their descriptors; none is loaded). Without --plugins every one is
// enabled; operators then trim the list to what they need. With it, each name must be found.
std::vector<std::string> pluginsToEnable(const Args& args) {
  PluginHost host;
  std::vector<std::string> found;
  for (const auto& m : host.discover(Config::defaultPluginDir(), {})) found.push_back(m.name);
  if (!args.has("plugins")) return found;
  std::vector<std::string> names;
  for (const auto& name : args.list("plugins")) {
    if (std::find(found.begin(), found.end(), name) == found.end()) {
      std::string known;
      for (const auto& f : found) known += (known.empty() ? "" : ", ") + f;
      throw UsageError("--plugins names '" + name + "', which is not in " +
                       Config::defaultPluginDir().string() + " (found: " + known + ")");
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

// Whether `init` has nothing left to do: the master key is there (a file, a wrapped file or the
// environment's) and so is a SQLite database. A PostgreSQL store is made by whichever gateway
// opens it first, so its data directory is done once it has the key.
bool initialized(const Config& config) {
  bool key = std::getenv("SIGNET_MASTER_KEY") || std::filesystem::exists(config.masterKeyFile) ||
             std::filesystem::exists(MasterKey::wrappedFile(config.masterKeyFile));
  return key && (config.database.backend != Backend::kSqlite ||
                 std::filesystem::exists(config.database.connection));
}
}  // namespace

int initCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "plugins", "config"}, {});
  std::filesystem::path dir = args.require("data-dir");
  if (args.has("plugins") && args.has("config"))
    throw UsageError(
        "--plugins writes the data directory's own signet.json; with --config, "
        "list the plugins in that file's plugins.enabled");
  // Checked before anything is written: a typo changes nothing.
  std::vector<std::string> plugins = pluginsToEnable(args);
  auto configFile = std::filesystem::path(args.get("config").value_or((dir / "signet.json")));
  if (args.has("config") && !std::filesystem::exists(configFile))
    throw UsageError("--config names " + configFile.string() + ", which does not exist");
  std::filesystem::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  if (args.has("plugins") && std::filesystem::exists(configFile))
    throw UsageError(configFile.string() +
                     " exists already; change its plugins with signet plugins enable|disable");
  if (!std::filesystem::exists(configFile)) {
    std::ofstream(configFile) << Config::defaultFileText(plugins);
    std::cerr << "wrote " << configFile.string() << "\n";
  }
  Config config = Config::load(dir, configFile);
  // Run again (a service's every start runs it first): nothing to do, and nothing is opened.
  if (initialized(config)) {
    std::cout << dir.string() << " is initialized already; nothing done\n";
    return 0;
  }
  if (!std::getenv("SIGNET_MASTER_KEY") && !std::filesystem::exists(config.masterKeyFile)) {
    MasterKey::create(config.masterKeyFile);
    std::cerr << "wrote master key " << config.masterKeyFile.string() << " (mode 0600)\n";
  }
  Gateway gateway(config);  // creates the database, applies migrations, makes the signer key
  std::cerr << "database ready; gateway signer public key " << gateway.signerPublicKey() << "\n";
  std::cout << "initialized " << dir.string() << "\n";
  return 0;
}

int keysShowCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config"}, {});
  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  Gateway gateway(config);
  std::cout << "{\"signerPublicKey\":\"" << gateway.signerPublicKey() << "\"}\n";
  return 0;
}

int keysWrapMasterCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config"}, {});
  std::string dataDir = args.require("data-dir");
  Config config = Config::load(dataDir, args.get("config").value_or(""));
  if (!config.masterKeyPkcs11)
    throw failedPrecondition(
        "the config names no token: set masterKeyPkcs11 {module, token, "
        "key, pinEnv} in signet.json first");
  ServeLock lock(dataDir);
  if (!lock.acquired())
    throw failedPrecondition("a gateway is serving from " + dataDir + "; stop it first");
  MasterKey::wrap(config.masterKeyFile, *config.masterKeyPkcs11);
  Gateway gateway(config);  // opens the store through the token: every secret still opens
  std::cout << "{\"wrappedKeyFile\":\"" << MasterKey::wrappedFile(config.masterKeyFile).string()
            << "\",\"token\":\"" << config.masterKeyPkcs11->token << "\",\"key\":\""
            << config.masterKeyPkcs11->key << "\"}" << std::endl;
  return 0;
}

int keysRotateMasterCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config"}, {});
  std::string dataDir = args.require("data-dir");
  Config config = Config::load(dataDir, args.get("config").value_or(""));
  // Secrets a serving gateway sealed meanwhile would be left under the old key only.
  ServeLock lock(dataDir);
  if (!lock.acquired())
    throw failedPrecondition("a gateway is serving from " + dataDir +
                             "; stop it (and every gateway on the same PostgreSQL) first");
  Gateway gateway(config);  // applies the migrations the rotation needs
  auto report = rotateMasterKey(gateway.database(), config.masterKeyFile, config.masterKeyPkcs11);
  std::cout << "{\"rotated\":" << report.secrets << ",\"oldKeyFile\":\""
            << report.oldKeyFile.string() << "\"}" << std::endl;
  std::cerr << "the previous master key is in " << report.oldKeyFile.string()
            << ": destroy it once no backup made before this rotation is needed" << std::endl;
  return 0;
}

}  // namespace signet::cli
