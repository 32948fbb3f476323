// signet: the gateway's command line. `signet <command> --help` explains each command.
#include <Poco/AutoPtr.h>
#include <Poco/ConsoleChannel.h>
#include <Poco/FormattingChannel.h>
#include <Poco/Logger.h>
#include <Poco/PatternFormatter.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "signet/error.hpp"
#include "signet/version.hpp"

namespace signet::cli {

const std::vector<Command>& commands() {
  // clang-format off
  static const std::vector<Command> table = {
    {"init", "create a data directory: config, SQLite database, master key, signer key",
     "signet init --data-dir DIR [--plugins NAME,NAME | --config FILE]\n"
     "  --plugins enables just those (each must be in the plugin directory); without it,\n"
     "  every plugin found. --config: an existing configuration (/etc/signet/signet.json, say)\n"
     "  instead of DIR/signet.json. A directory initialized already is left as it is.",
     initCommand},
    {"org create", "bootstrap a root organization with one root user and API key",
     "signet org create --data-dir DIR --name NAME --user-name NAME [--api-public-key HEX]\n"
     "                  [--api-curve API_KEY_CURVE_P256|API_KEY_CURVE_SECP256K1|API_KEY_CURVE_ED25519]\n"
     "                  [--base-url URL] [--config FILE]\n"
     "  Prints {\"organizationId\",\"userId\",\"apiKeyId\"} as one line of JSON. Without\n"
     "  --api-public-key a P-256 key pair is generated and written (0600) with the ids and\n"
     "  the base URL (default http://<listen from the config>) to\n"
     "  DIR/<organizationId>.api-key.json, whose fields @turnkey/sdk-server's Turnkey takes\n"
     "  as they are: apiBaseUrl, apiPublicKey, apiPrivateKey, defaultOrganizationId.",
     orgCreateCommand},
    {"serve", "serve the API until SIGINT or SIGTERM",
     "signet serve --data-dir DIR [--listen 127.0.0.1:8080] [--config FILE]\n"
     "             [--tls-cert FILE --tls-key FILE]\n"
     "  --listen HOST:0 picks a free port; the chosen one is printed.\n"
     "  With --tls-cert and --tls-key (PEM), it serves HTTPS (TLS 1.2 or newer) and reads\n"
     "  both files again on SIGHUP.", serveCommand},
    {"plugins list", "list plugins found, their versions, state and registrations",
     "signet plugins list [--data-dir DIR] [--config FILE] [--plugin-dir DIR]", pluginsListCommand},
    {"plugins enable", "enable a plugin in the config (takes effect at the next start)",
     "signet plugins enable NAME --data-dir DIR [--config FILE]", pluginsEnableCommand},
    {"plugins disable", "disable a plugin in the config (takes effect at the next start)",
     "signet plugins disable NAME --data-dir DIR [--config FILE]", pluginsDisableCommand},
    {"rollout set", "set an activity version's rollout state, applied without a restart",
     "signet rollout set TYPE STATE --data-dir DIR [--orgs ID,...] [--percent N]\n"
     "                  [--replacement TYPE] [--sunset YYYY-MM-DD] [--config FILE]\n"
     "  STATE: disabled | canary (--orgs, --percent) | general | deprecated (--replacement,\n"
     "  --sunset, default 90 days on) | retired (--replacement) | default (the plugin's own).\n"
     "  Every gateway on the same store applies it within two seconds.", rolloutSetCommand},
    {"rollout list", "every activity type's rollout state, and whether the operator set it",
     "signet rollout list --data-dir DIR [--config FILE]", rolloutListCommand},
    {"auth-proxy enable", "enable the auth proxy for an organization (its user, policy and key)",
     "signet auth-proxy enable --data-dir DIR --organization ORG_ID [--config FILE]\n"
     "  Prints {\"configId\",\"userId\"}: the configId is what apps send as\n"
     "  X-Auth-Proxy-Config-Id. Works whether or not a gateway serves the store.",
     authProxyEnableCommand},
    {"auth-proxy configure", "set the auth proxy's settings (update_auth_proxy_config fields)",
     "signet auth-proxy configure --data-dir DIR --organization ORG_ID --file CONFIG.json\n"
     "  CONFIG.json: {\"allowedOrigins\":[...],\"sessionExpirationSeconds\":900,...}; see\n"
     "  docs/auth-proxy.md for every field.", authProxyConfigureCommand},
    {"auth-proxy show", "print an organization's auth proxy configuration (never its key)",
     "signet auth-proxy show --data-dir DIR --organization ORG_ID [--config FILE]",
     authProxyShowCommand},
    {"auth-proxy disable", "disable the auth proxy (its key is deleted; settings are kept)",
     "signet auth-proxy disable --data-dir DIR --organization ORG_ID [--config FILE]",
     authProxyDisableCommand},
    {"auth-proxy keygen", "make a standalone proxy's service key",
     "signet auth-proxy keygen --out FILE\n"
     "  Writes the P-256 private key (hex, mode 0600) and prints {\"publicKey\"}: list it in\n"
     "  the coordinator's plugins.settings.auth-proxy.trustedProxyKeys.", authProxyKeygenCommand},
    {"auth-proxy serve", "run the auth proxy alone, in front of a coordinator elsewhere",
     "signet auth-proxy serve --coordinator URL --service-key FILE [--listen 127.0.0.1:8090]\n"
     "                        [--coordinator-ca FILE] [--settings FILE] [--plugin-dir DIR]\n"
     "  Opens no store: the proxy reaches the coordinator only through its public API. An\n"
     "  https:// coordinator's certificate must verify against the system's CAs or those of\n"
     "  --coordinator-ca (PEM); one that does not is refused at start.\n"
     "  --settings: the plugin's settings (limits, configCacheSeconds) as JSON. Prints\n"
     "  'auth proxy listening on http://HOST:PORT' once it accepts connections.",
     authProxyServeCommand},
    {"keys show", "print the gateway signer's public key (for SDK override options)",
     "signet keys show --data-dir DIR [--config FILE]", keysShowCommand},
    {"keys rotate-master", "re-seal every secret under a new master key (the gateway stopped)",
     "signet keys rotate-master --data-dir DIR [--config FILE]\n"
     "  Writes the new key to the master key file and keeps the old one as <file>.old. Safe\n"
     "  to interrupt: the installed key always opens every secret, and running it again\n"
     "  finishes. Refused with SIGNET_MASTER_KEY (put the key in the file first).",
     keysRotateMasterCommand},
    {"keys wrap-master", "keep the master key wrapped by an AES key in a PKCS#11 token (an HSM)",
     "signet keys wrap-master --data-dir DIR [--config FILE]\n"
     "  The config's masterKeyPkcs11 {module, token, key, pinEnv} names the token; the PIN is\n"
     "  read from the environment variable pinEnv (default SIGNET_PKCS11_PIN). Makes the key in\n"
     "  the token (sensitive, not extractable) when absent, writes <master key file>.wrapped,\n"
     "  checks that it opens, then deletes the plain key file. The gateway stopped.",
     keysWrapMasterCommand},
    {"log checkpoint", "sign the activity log's head and keep it (an auditor keeps the file)",
     "signet log checkpoint --data-dir DIR [--config FILE] [--out FILE]\n"
     "  Prints the C2SP signed note (origin, tree size, root), or writes it to FILE.",
     logCheckpointCommand},
    {"log key", "print the activity log's verifier key, for an auditor to pin",
     "signet log key --data-dir DIR [--config FILE]", logKeyCommand},
    {"log prove", "print an activity's inclusion proof in the activity log, as JSON",
     "signet log prove ACTIVITY_ID --data-dir DIR [--config FILE] [--tree-size N]",
     logProveCommand},
    {"log verify", "check that the activity log only grew since a checkpoint, and the store with it",
     "signet log verify --from CHECKPOINT_FILE --data-dir DIR [--config FILE] [--key VKEY]\n"
     "                  [--witness VKEY,VKEY... [--witnesses K]]\n"
     "  Recomputes the tree from the store's leaves, checks that its first leaves still hash\n"
     "  to the checkpoint's root and that every activity is in its last logged state, and names\n"
     "  the first activity altered, removed or reordered. Exit 0 when all holds, 1 otherwise.\n"
     "  --key pins the log's verifier key (signet log key); else the keyring's is used. It\n"
     "  reads the store as it is: run it on a copy, or with the gateway stopped. With --witness,\n"
     "  the checkpoint must carry valid cosignatures (cosignature/v1) from K of those witnesses\n"
     "  (all of them without --witnesses).",
     logVerifyCommand},
    {"backup", "copy a SQLite store consistently, while the gateway serves",
     "signet backup --data-dir DIR --out FILE [--config FILE]\n"
     "  FILE must not exist; it is written 0600. The master key is not in it: keep\n"
     "  master.key (or SIGNET_MASTER_KEY) safe elsewhere. PostgreSQL: pg_dump (docs/cli.md).",
     backupCommand},
    {"restore", "put a backup back in place of the SQLite store (the gateway stopped)",
     "signet restore --data-dir DIR --from FILE [--config FILE]\n"
     "  Refused while a gateway serves from DIR, for a file that is not an intact Signet\n"
     "  store, and when DIR's master key does not open its secrets.", restoreCommand},
  };
  // clang-format on
  return table;
}

}  // namespace signet::cli

namespace {
void setUpLogging() {
  Poco::AutoPtr<Poco::PatternFormatter> formatter(
      new Poco::PatternFormatter("%Y-%m-%dT%H:%M:%S.%iZ %p %s: %t"));
  Poco::AutoPtr<Poco::FormattingChannel> channel(
      new Poco::FormattingChannel(formatter, new Poco::ConsoleChannel(std::cerr)));
  Poco::Logger::root().setChannel(channel);
  const char* level = std::getenv("SIGNET_LOG_LEVEL");
  Poco::Logger::root().setLevel(level && *level ? level : "information");
  for (const char* name : {"signet", "signet.http", "signet.activity", "signet.plugins"}) {
    Poco::Logger::get(name).setChannel(channel);
    Poco::Logger::get(name).setLevel(Poco::Logger::root().getLevel());
  }
}

void printUsage() {
  std::cout << "usage: signet <command> [options]\n\ncommands:\n";
  for (const auto& c : signet::cli::commands())
    std::cout << "  " << c.name
              << std::string(std::strlen(c.name) < 22 ? 22 - std::strlen(c.name) : 1, ' ')
              << c.summary << "\n";
  std::cout << "\n`signet <command> --help` describes a command. Enabled plugins add their own:\n"
               "`signet <plugin> <command> --data-dir DIR ...` (for example `signet webhooks\n"
               "rotate-key`).\nOptions may come before, between or after a command's words. "
               "`signet --version`\n"
               "prints the version.\n";
}

// The command `args` names, wherever its options are: its name is the first one or two words
// (`serve`, `org create`). Its arguments are the others, in their order.
const signet::cli::Command* findCommand(const std::vector<std::string>& args,
                                        std::vector<std::string>& rest) {
  auto words = signet::cli::wordPositions(args);
  for (const auto& c : signet::cli::commands()) {
    std::string name = c.name;
    size_t count = name.find(' ') == std::string::npos ? 1 : 2;
    if (words.size() < count) continue;
    std::string given = args[words[0]] + (count == 2 ? " " + args[words[1]] : "");
    if (given != name) continue;
    rest.clear();
    for (size_t i = 0; i < args.size(); ++i)
      if (i != words[0] && (count == 1 || i != words[1])) rest.push_back(args[i]);
    return &c;
  }
  return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage();
    return args.empty() ? 2 : 0;
  }
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "signet " << SIGNET_SDK_VERSION << "\n";
    return 0;
  }
  setUpLogging();
  // Everything signet creates (database, keys, config) is for its own user only.
  ::umask(077);
  std::vector<std::string> rest;
  if (const auto* c = findCommand(args, rest)) {
    if (signet::cli::asksForHelp(rest)) {
      std::cout << c->summary << "\n\nusage: " << c->usage << "\n";
      return 0;
    }
    try {
      return c->run(rest);
    } catch (const signet::cli::UsageError& e) {
      std::cerr << "signet " << c->name << ": " << e.what() << "\nusage: " << c->usage << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "signet " << c->name << ": " << e.what() << "\n";
      return 1;
    }
  }
  try {
    if (auto code = signet::cli::runPluginCommand(args)) return *code;
  } catch (const std::exception& e) {
    std::cerr << "signet " << args[0] << ": " << e.what() << "\n";
    return 1;
  }
  auto words = signet::cli::wordPositions(args);
  std::cerr << "signet: unknown command '" << (words.empty() ? args[0] : args[words[0]]) << "'\n";
  printUsage();
  return 2;
}
