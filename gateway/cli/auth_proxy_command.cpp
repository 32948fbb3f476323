// signet auth-proxy ...: the operator's side of the auth-proxy plugin.
//
// enable, configure, show and disable run the plugin's own activities and query as the
// operator of the data directory (activity/operator_activity.hpp), with or without a gateway
// serving the store; a running gateway's proxy sees the change within its config cache time.
// keygen makes a standalone proxy's service key, and serve runs the proxy alone, in front of a
// coordinator elsewhere: no store, no master key, only the plugin's listener, which reaches the
// coordinator through its public API.
#include <sys/stat.h>

#include <Poco/Logger.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "activity/operator_activity.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/stop_signals.hpp"
#include "server/http_server.hpp"
#include "signet/client.hpp"

namespace signet::cli {

namespace {

constexpr const char* kPlugin = "auth-proxy";

// The gateway of --data-dir, refusing when the plugin is not enabled there.
Gateway openGateway(const Args& args) {
  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  bool enabled = false;
  for (const auto& name : config.enabledPlugins) enabled |= name == kPlugin;
  if (!enabled)
    throw failedPrecondition("the auth-proxy plugin is not enabled in " + args.require("data-dir") +
                             ": run `signet plugins enable auth-proxy --data-dir " +
                             args.require("data-dir") + "`");
  return Gateway(config);
}

void print(const json::Object& o) {
  std::cout << json::stringify(o) << std::endl;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A coordinator whose certificate this proxy cannot verify is refused now, with the reason,
// rather than by every request later. One that does not answer yet may come up after the proxy.
void checkCoordinator(const std::string& url, const std::optional<std::string>& caFile) {
  try {
    Client(url, nullptr, caFile.value_or("")).get("/healthz");
  } catch (const TlsError& e) {
    throw failedPrecondition("refusing the coordinator " + url + ": " + e.what());
  } catch (const std::exception& e) {
    Poco::Logger::get("signet").warning("the coordinator %s does not answer yet: %s", url,
                                        std::string(e.what()));
  }
}

}  // namespace

int authProxyEnableCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "organization"}, {});
  Gateway gateway = openGateway(args);
  print(runAsOperator(gateway, "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", args.require("organization"),
                      json::object()));
  return 0;
}

int authProxyConfigureCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "organization", "file"}, {});
  auto settings = json::parseObject(readFile(args.require("file")), args.require("file"));
  Gateway gateway = openGateway(args);
  print(runAsOperator(gateway, "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
                      args.require("organization"), settings));
  return 0;
}

int authProxyShowCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "organization"}, {});
  Gateway gateway = openGateway(args);
  print(queryAsOperator(gateway, "get_auth_proxy_config", args.require("organization")));
  return 0;
}

int authProxyDisableCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "organization"}, {});
  Gateway gateway = openGateway(args);
  print(runAsOperator(gateway, "ACTIVITY_TYPE_DISABLE_AUTH_PROXY", args.require("organization"),
                      json::object()));
  return 0;
}

int authProxyKeygenCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"out"}, {});
  std::string out = args.require("out");
  if (std::filesystem::exists(out)) throw UsageError(out + " exists; not overwriting a key");
  auto key = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string hex = toHex(key.bytes());
  crypto::WipeOnExit wipeHex(hex);
  {
    std::ofstream file(out);  // 0600: main sets umask 077
    file << hex << "\n";
    if (!file) throw std::runtime_error("could not write " + out);
  }
  json::Object o = json::object();
  o->set("publicKey", toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, key)));
  print(o);
  return 0;
}

int authProxyServeCommand(const std::vector<std::string>& argv) {
  Args args(argv,
            {"coordinator", "coordinator-ca", "listen", "service-key", "settings", "plugin-dir"},
            {});
  sigset_t stopSignals = blockStopSignals();
  std::string coordinator = args.require("coordinator");
  if (coordinator.rfind("http://", 0) != 0 && coordinator.rfind("https://", 0) != 0)
    throw UsageError("--coordinator must be the coordinator's https:// or http:// URL, not '" +
                     coordinator + "'");
  while (!coordinator.empty() && coordinator.back() == '/') coordinator.pop_back();
  json::Object settings = json::object();
  if (auto file = args.get("settings")) settings = json::parseObject(readFile(*file), *file);
  settings->set("coordinator", coordinator);
  if (auto caFile = args.get("coordinator-ca"))
    settings->set("coordinatorCaFile", std::filesystem::absolute(*caFile).string());
  checkCoordinator(coordinator, json::optionalString(settings, "coordinatorCaFile", "settings"));
  settings->set("serviceKeyFile", std::filesystem::absolute(args.require("service-key")).string());
  settings->set(
      "listen",
      args.get("listen").value_or(
          json::optionalString(settings, "listen", "settings").value_or("127.0.0.1:8090")));
  Config config;
  config.pluginDir = args.get("plugin-dir").value_or(Config::defaultPluginDir().string());
  config.enabledPlugins = {kPlugin};
  config.pluginSettings[kPlugin] = settings;
  Gateway gateway(config, Gateway::Detached{});
  const ListenerSpec* proxy = nullptr;
  for (const auto& m : gateway.catalog().modules())
    if (m->name == kPlugin)
      for (const auto& l : m->listeners) proxy = &l;
  if (!proxy) throw failedPrecondition("the auth-proxy plugin registered no listener");
  HttpServer server(gateway, proxy->address, proxy, kPlugin);
  server.start();
  std::string host = proxy->address.substr(0, proxy->address.rfind(':'));
  std::cout << proxy->announce << " http://" << host << ":" << server.port() << std::endl;
  int received = waitForStopSignal(stopSignals);
  Poco::Logger::get("signet").information("received signal %d; finishing requests in flight",
                                          received);
  server.stop();
  return 0;
}

}  // namespace signet::cli
