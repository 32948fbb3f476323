// The HTTP listener: one event-loop thread that owns every connection (epoll, non-blocking
// sockets), and a pool of worker threads that run the Router on complete requests. A worker
// writes its answer itself when the socket takes it whole and re-arms the connection for its
// next request; only the rest (a partial write, a pipelined request, a closing connection)
// goes back to the loop.
//
// Why not Poco's HTTPServer: it gives each connection a thread for the connection's whole
// life, so a handful of slow (one header byte a second), idle or keep-alive clients hold every
// thread and everyone else waits or is reset. Here a connection costs a buffer until its
// request is complete; only then does it take a worker, for as long as the handler runs.
// Deadlines bound how long a request's head and body may take to arrive and how long a
// keep-alive connection may sit idle; connections are bounded per client address and in
// total, and a full worker queue answers 503 at once instead of queueing without end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "server/router.hpp"
#include "server/tls_context.hpp"

namespace signet {

class HttpServer {
 public:
  // `listen` is host:port; port 0 picks a free one (see port()). With `listener`, it serves
  // that plugin listener's routes only, with the same limits as the main server.
  HttpServer(Gateway& gateway, const std::string& listen, const ListenerSpec* listener = nullptr,
             const std::string& listenerModule = {});
  ~HttpServer();
  // Serve TLS on this listener (before start()); the context may be reloaded meanwhile.
  void useTls(std::shared_ptr<const TlsContext> tls);
  void start();
  void stop();
  uint16_t port() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace signet
