// signet serve: runs the API until SIGINT or SIGTERM, then lets requests in flight finish.
#include <Poco/Logger.h>

#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/serve_lock.hpp"
#include "cli/stop_signals.hpp"
#include "server/http_server.hpp"

namespace signet::cli {

int serveCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "listen", "config"}, {});
  sigset_t stopSignals = blockStopSignals();

  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  if (auto listen = args.get("listen")) config.listen = *listen;
  // Held until the process ends: `signet restore` refuses to run under a serving gateway.
  // Several gateways may serve one PostgreSQL store, so only SQLite stores are held to one.
  ServeLock lock(args.require("data-dir"));
  if (config.database.backend == Backend::kSqlite && !lock.acquired())
    throw failedPrecondition("another signet serve (or a restore) holds " +
                             args.require("data-dir") + "/serve.lock");
  Gateway gateway(config);
  HttpServer server(gateway, config.listen);
  server.start();
  std::string host = config.listen.substr(0, config.listen.rfind(':'));
  // What the gateway's own clients (the auth proxy) connect to: a wildcard address is reached
  // on loopback.
  std::string reach = host == "0.0.0.0" ? "127.0.0.1" : host == "[::]" ? "[::1]" : host;
  gateway.setLocalUrl("http://" + reach + ":" + std::to_string(server.port()));
  gateway.startBackground();
  auto& log = Poco::Logger::get("signet");
  for (const auto& m : gateway.catalog().modules()) {
    if (!m->enabled) continue;
    log.information("module %s %s: %z activity types, %z queries", m->name, m->version,
                    m->activities.size(), m->queries.size());
    for (const auto& notice : m->startupNotices) log.warning("module %s: %s", m->name, notice);
  }
  // Plugins' own listeners, each its own server with the main one's limits.
  std::vector<std::unique_ptr<HttpServer>> listeners;
  std::vector<std::string> listenerLines;
  for (const auto& m : gateway.catalog().modules()) {
    if (!m->enabled) continue;
    for (const auto& l : m->listeners) {
      listeners.push_back(std::make_unique<HttpServer>(gateway, l.address, &l, m->name));
      listeners.back()->start();
      std::string prefix =
          l.announce.empty() ? "plugin " + m->name + " listener " + l.name + " on" : l.announce;
      listenerLines.push_back(prefix + " http://" + l.address.substr(0, l.address.rfind(':')) +
                              ":" + std::to_string(listeners.back()->port()));
    }
  }
  // Tests and scripts read this line to learn the port when --listen asks for port 0; the
  // listeners' lines follow it.
  std::cout << "signet listening on http://" << host << ":" << server.port() << std::endl;
  for (const auto& line : listenerLines) std::cout << line << std::endl;

  int received = waitForStopSignal(stopSignals);
  log.information("received signal %d; finishing requests in flight", received);
  for (auto& l : listeners) l->stop();
  server.stop();
  gateway.stopBackground();
  log.information("stopped");
  return 0;
}

}  // namespace signet::cli
