// signet init: the data directory with its config, SQLite database, master key (0600) and
// the gateway signer key (sealed in the keyring).
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"
#include "plugins/plugin_host.hpp"
#include "store/keyring.hpp"

namespace signet::cli {

namespace {
// Enables every plugin found at init time; operators then trim the list to what they need.
std::vector<std::string> pluginsFound() {
  PluginHost host;
  std::vector<std::string> names;
  for (const auto& m : host.discover(Config::defaultPluginDir(), {})) names.push_back(m.name);
  return names;
}
}  // namespace

int initCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir"}, {});
  std::filesystem::path dir = args.require("data-dir");
  std::filesystem::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  auto configFile = dir / "signet.json";
  if (!std::filesystem::exists(configFile)) {
    std::ofstream(configFile) << Config::defaultFileText(pluginsFound());
    std::cerr << "wrote " << configFile.string() << "\n";
  }
  Config config = Config::load(dir);
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

}  // namespace signet::cli
