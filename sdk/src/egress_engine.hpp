// Inside the egress policy (not a public header): the egress thread, the bounds, the TLS
// contexts, and the resolver pool, which every call shares.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "signet/egress.hpp"

namespace signet::egress::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// "host:port" as a bound counts it: the host lower-cased, an IPv6 literal in brackets.
std::string destinationOf(const std::string& host, uint16_t port);

Error failure(const char* detail, const std::string& message);

// Names resolved off the egress thread. getaddrinfo blocks and cannot be cancelled, and Asio's
// resolver runs every query of an io_context on one thread: a name server that never answers
// would stall every call behind it. Here a few threads resolve, a bounded queue waits for them,
// and a caller whose deadline passes stops waiting: its answer, when it comes, is dropped.
class ResolverPool {
 public:
  using Outcome = std::variant<std::vector<tcp::endpoint>, std::string>;  // or why not
  using Done = std::function<void(Outcome)>;
  static constexpr int kThreads = 4;
  static constexpr size_t kMaxQueued = 256;

  ResolverPool();
  // Calls `done` on a resolver thread; false (and no call) when the queue is full.
  bool resolve(std::string host, uint16_t port, Done done);

 private:
  struct Query {
    std::string host;
    uint16_t port;
    Done done;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Query> queue_;
  std::vector<std::thread> threads_;
};

class Engine {
 public:
  static Engine& get();
  asio::io_context& io() { return io_; }
  ResolverPool& resolver() { return resolver_; }
  bool onEgressThread() const { return std::this_thread::get_id() == thread_.get_id(); }

  void configure(const Limits& l);
  Limits limits();
  int inFlight();
  // A slot for `destination` (and, for an API request's call, one of the request slots), or
  // the reason there is none.
  std::optional<std::string> acquire(const std::string& destination, bool forRequest);
  void release(const std::string& destination, bool forRequest);

  std::shared_ptr<asio::ssl::context> tlsContext(const std::string& caFile);

 private:
  Engine();
  void run();

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  ResolverPool resolver_;
  std::thread thread_;
  std::mutex mutex_;
  Limits limits_;
  int total_ = 0;
  int forRequests_ = 0;
  std::map<std::string, int> perDestination_;
  std::map<std::string, std::shared_ptr<asio::ssl::context>> tls_;
};

// The endpoints `rules` allow among `found`; when one is forbidden, the refusal naming it.
std::variant<std::vector<tcp::endpoint>, Error> allowed(const std::vector<tcp::endpoint>& found,
                                                        const std::string& host, const Rules& rules,
                                                        const std::string& what);

}  // namespace signet::egress::detail
