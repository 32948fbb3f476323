// signet serve: runs the API until SIGINT or SIGTERM, then lets requests in flight finish.
#include <Poco/Logger.h>

#include <iostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/serve_lock.hpp"
#include "cli/stop_signals.hpp"
#include "observability/scrape.hpp"
#include "server/http_server.hpp"
#include "signet/memory.hpp"

namespace signet::cli {

int serveCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "listen", "config", "tls-cert", "tls-key"}, {});
  sigset_t stopSignals = blockStopSignals(/*withReload=*/true);

  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  if (auto listen = args.get("listen")) config.listen = *listen;
  if (args.get("tls-cert") || args.get("tls-key")) {
    if (!args.get("tls-cert") || !args.get("tls-key"))
      throw invalidArgument("give both --tls-cert FILE and --tls-key FILE, or neither");
    config.tlsCertFile = *args.get("tls-cert");
    config.tlsKeyFile = *args.get("tls-key");
  }
  // Read before anything starts: a wrong file stops start-up with its name.
  std::shared_ptr<TlsContext> tls;
  if (!config.tlsCertFile.empty())
    tls = std::make_shared<TlsContext>(config.tlsCertFile, config.tlsKeyFile);
  // Held until the process ends: `signet restore` refuses to run under a serving gateway.
  // Several gateways may serve one PostgreSQL store, so only SQLite stores are held to one.
  ServeLock lock(args.require("data-dir"));
  if (config.database.backend == Backend::kSqlite && !lock.acquired())
    throw failedPrecondition("another signet serve (or a restore) holds " +
                             args.require("data-dir") + "/serve.lock");
  Gateway gateway(config);
  HttpServer server(gateway, config.listen);  // bound: its port is known, port 0 included
  if (tls) server.useTls(tls);
  const std::string scheme = tls ? "https://" : "http://";
  std::string host = config.listen.substr(0, config.listen.rfind(':'));
  // Without publicUrl in the config, clients reach the gateway where it listens, which
  // --listen and --tls-cert may have changed: the issuer of its ID tokens follows.
  if (!config.publicUrlConfigured)
    gateway.setPublicUrl(scheme + host + ":" + std::to_string(server.port()));
  server.start();
  // What the gateway's own clients (the auth proxy) connect to: a wildcard address is reached
  // on loopback.
  std::string reach = host == "0.0.0.0" ? "127.0.0.1" : host == "[::]" ? "[::1]" : host;
  gateway.setLocalUrl(scheme + reach + ":" + std::to_string(server.port()));
  gateway.startBackground();
  auto& log = Poco::Logger::get("signet");
  auto allocator = allocatorInForce();
  log.information("memory allocator: %s",
                  allocator.name + (allocator.version.empty() ? "" : " " + allocator.version));
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
  // GET /metrics on an address of the operator's choosing, to whoever reaches it.
  ListenerSpec metricsListener{.name = "metrics",
                               .address = config.metricsListen,
                               .routes = {{.method = "GET",
                                           .path = "/metrics",
                                           .access = RouteAccess::kDetached,
                                           .handler = [&gateway](RequestContext&, const HttpCall&) {
                                             return HttpReply{
                                                 .status = 200,
                                                 .contentType = "text/plain; version=0.0.4",
                                                 .body = scrapeMetrics(gateway)};
                                           }}}};
  if (!config.metricsListen.empty()) {
    listeners.push_back(
        std::make_unique<HttpServer>(gateway, config.metricsListen, &metricsListener, "core"));
    listeners.back()->start();
    listenerLines.push_back("metrics on http://" +
                            config.metricsListen.substr(0, config.metricsListen.rfind(':')) + ":" +
                            std::to_string(listeners.back()->port()) + "/metrics");
  }
  if (tls) log.information("TLS: serving %s", tls->describe());
  // Tests and scripts read this line to learn the port when --listen asks for port 0; the
  // listeners' lines follow it.
  std::cout << "signet listening on " << scheme << host << ":" << server.port() << std::endl;
  for (const auto& line : listenerLines) std::cout << line << std::endl;

  int received;
  // SIGHUP reads the certificate again; a file that fails keeps the current one.
  while ((received = waitForStopSignal(stopSignals)) == SIGHUP) {
    if (!tls) {
      log.information("received SIGHUP; no TLS certificate to reload");
      continue;
    }
    try {
      tls->reload();
      log.information("received SIGHUP; TLS certificate reloaded: %s", tls->describe());
    } catch (const std::exception& e) {
      log.error("received SIGHUP; TLS certificate NOT reloaded, still serving the previous one: %s",
                std::string(e.what()));
    }
  }
  log.information("received signal %d; finishing requests in flight", received);
  for (auto& l : listeners) l->stop();
  server.stop();
  gateway.stopBackground();
  log.information("stopped");
  return 0;
}

}  // namespace signet::cli
