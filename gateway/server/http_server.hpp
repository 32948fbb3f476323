// The HTTP listener: a pool of threads sharing one epoll over non-blocking sockets, each
// taking one event at a time and doing all it calls for itself (leader and followers in
// turn): it reads and parses, runs a complete request through the Router, and writes the
// answer. Sockets are watched one-shot, so one thread at a time has a connection. At most
// `limits.threads` requests run at once; there is one thread more, so that one always reads
// and refuses or queues what comes meanwhile.
//
// Why not Poco's HTTPServer: it gives each connection a thread for the connection's whole
// life, so a handful of slow (one header byte a second), idle or keep-alive clients hold every
// thread and everyone else waits or is reset. Here a connection costs a buffer until its
// request is complete; only then does it take a handler slot, for as long as the handler
// runs. Why not one loop handing requests to workers (as this server did): every request then
// crossed threads twice, a wake-up and a context switch each way. Why not Boost.Asio's
// io_context run by every thread: its scheduler has one thread wait for events and wakes another
// to wait in its place whenever that one takes a handler, a second context switch an event;
// measured, whoami lost about 15 % of its rate (docs/performance.md, "tried and left out").
// Deadlines bound how long a request's head and body may take to arrive and how long a
// keep-alive connection may sit idle; connections are bounded per client address and in
// total, and a full queue of requests waiting for a slot answers 503 at once instead of
// queueing without end.
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
