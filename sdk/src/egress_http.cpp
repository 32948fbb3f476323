// The call half of the egress policy: one HTTP/1.1 exchange over Boost.Beast, on one egress
// thread that runs every call's I/O, bounded in number, each under one deadline.
//
// Why Beast and a thread of its own: a blocking client (Poco's) bounds each read and write,
// not the whole exchange, so a peer that sends a byte every few seconds holds its caller for
// as long as it likes; and it holds the caller's thread while it waits. Here a timer closes the
// socket at the deadline whatever the exchange is doing, and the caller may wait for the
// completion or not wait at all (exchangeAsync).
#include <Poco/URI.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "signet/egress.hpp"
#include "signet/tls_ciphers.hpp"

namespace signet::egress {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// ---- the egress thread, and the bounds ----

class Engine {
 public:
  static Engine& get() {
    static Engine* engine = new Engine;  // never destroyed: calls may be in flight at exit
    return *engine;
  }
  asio::io_context& io() { return io_; }
  bool onEgressThread() const { return std::this_thread::get_id() == thread_.get_id(); }

  void configure(const Limits& l) {
    std::lock_guard lock(mutex_);
    limits_ = l;
  }
  Limits limits() {
    std::lock_guard lock(mutex_);
    return limits_;
  }
  int inFlight() {
    std::lock_guard lock(mutex_);
    return total_;
  }
  // A slot for `destination` (and, for an API request's call, one of the request slots), or
  // the reason there is none.
  std::optional<std::string> acquire(const std::string& destination, bool forRequest) {
    std::lock_guard lock(mutex_);
    int& mine = perDestination_[destination];
    bool requestsFull = forRequest && forRequests_ >= limits_.maxConcurrent;
    if (requestsFull || mine >= limits_.maxPerDestination) {
      if (mine == 0) perDestination_.erase(destination);
      return requestsFull ? std::to_string(forRequests_) +
                                " outbound calls for API requests are in flight, the limit "
                                "(limits.egress.maxConcurrent)"
                          : std::to_string(mine) + " calls to " + destination +
                                " are in flight, the limit (limits.egress.maxPerDestination)";
    }
    ++mine;
    ++total_;
    if (forRequest) ++forRequests_;
    return std::nullopt;
  }
  void release(const std::string& destination, bool forRequest) {
    std::lock_guard lock(mutex_);
    auto it = perDestination_.find(destination);
    if (it != perDestination_.end() && --it->second <= 0) perDestination_.erase(it);
    --total_;
    if (forRequest) --forRequests_;
  }

  std::shared_ptr<asio::ssl::context> tlsContext(const std::string& caFile) {
    std::lock_guard lock(mutex_);
    auto& slot = tls_[caFile];
    if (!slot) {
      auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
      ctx->set_default_verify_paths();
      if (!caFile.empty()) ctx->load_verify_file(caFile);
      ctx->set_verify_mode(asio::ssl::verify_peer);
      SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
      SSL_CTX_set_cipher_list(ctx->native_handle(), kTls12Ciphers);
      slot = std::move(ctx);
    }
    return slot;
  }

 private:
  Engine() : work_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
  std::mutex mutex_;
  Limits limits_;
  int total_ = 0;
  int forRequests_ = 0;
  std::map<std::string, int> perDestination_;
  std::map<std::string, std::shared_ptr<asio::ssl::context>> tls_;
};

// For a caller that set no deadline.
constexpr auto kDefaultTimeout = std::chrono::seconds(10);

Error failure(const char* detail, const std::string& message) {
  return Error(Code::kUnavailable, message, detail);
}

Address addressOf(const asio::ip::address& a) {
  Address out;
  if (a.is_v4()) {
    auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), out.bytes.begin());
    out.v4 = true;
  } else {
    out.bytes = a.to_v6().to_bytes();
  }
  return out;
}

// The endpoints `rules` allow among `results`; when none is, the refusal naming the first.
std::variant<std::vector<tcp::endpoint>, Error> allowed(const tcp::resolver::results_type& results,
                                                        const std::string& host, const Rules& rules,
                                                        const std::string& what) {
  std::vector<tcp::endpoint> out;
  std::optional<std::string> refused;
  for (const auto& entry : results) {
    Address a = addressOf(entry.endpoint().address());
    Range range = classify(a);
    if (rules.allowInternal || range == Range::kPublic) {
      out.push_back(entry.endpoint());
    } else if (!refused) {
      refused = host + " resolves to " + toString(a) + ", which is not a public address (" +
                describe(range) + ")";
    }
  }
  // A name with one internal address among public ones could be steered to it by whoever
  // controls its records: all of them must be allowed.
  if (refused)
    return failure(kRefused, what + ": " + *refused +
                                 ", which outbound calls may not reach unless the operator names "
                                 "the destination");
  if (out.empty()) return failure(kFailed, what + ": " + host + " does not resolve");
  return out;
}

struct Target {
  bool https = false;
  std::string host;  // without brackets
  uint16_t port = 0;
  std::string pathAndQuery;
};

std::variant<Target, Error> targetOf(const std::string& url, const Rules& rules,
                                     const std::string& what) {
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const std::exception&) {
    return failure(kRefused, what + ": not a URL");
  }
  Target t;
  t.https = uri.getScheme() == "https";
  if (!t.https && !(uri.getScheme() == "http" && rules.allowHttp))
    return failure(kRefused, what +
                                 ": only https:// is allowed (plain http:// only where the "
                                 "operator allowed it)");
  if (!uri.getUserInfo().empty()) return failure(kRefused, what + ": a URL with user-info");
  t.host = uri.getHost();
  if (t.host.size() > 2 && t.host.front() == '[' && t.host.back() == ']')
    t.host = t.host.substr(1, t.host.size() - 2);
  if (t.host.empty()) return failure(kRefused, what + ": the URL names no host");
  t.port = uri.getPort();
  t.pathAndQuery = uri.getPathEtc();
  if (t.pathAndQuery.empty() || t.pathAndQuery[0] != '/') t.pathAndQuery = "/" + t.pathAndQuery;
  return t;
}

std::string destinationOf(const std::string& host, uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

// One exchange in flight: owns its sockets, its timer and its slot; completes once.
class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(Request request, Rules rules, Target target, std::string what, Completion done)
      : request_(std::move(request)),
        rules_(std::move(rules)),
        target_(std::move(target)),
        what_(std::move(what)),
        destination_(destinationOf(target_.host, target_.port)),
        done_(std::move(done)),
        resolver_(Engine::get().io()),
        timer_(Engine::get().io()),
        tcp_(Engine::get().io()) {
    if (target_.https) {
      tlsContext_ = Engine::get().tlsContext(rules_.caFile);
      tls_.emplace(Engine::get().io(), *tlsContext_);
    }
  }

  ~Call() {
    if (slot_) Engine::get().release(destination_, forRequest_);
  }

  void start() {
    if (auto busy = Engine::get().acquire(destination_, forRequest_)) {
      finish(failure(kBusy, what_ + ": " + *busy + "; try again shortly"));
      return;
    }
    slot_ = true;
    timer_.expires_at(rules_.deadline);
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;  // cancelled: the call ended first
      self->timedOut_ = true;
      self->resolver_.cancel();
      self->lowest().close();  // whatever the exchange waits in ends with operation_aborted
    });
    resolver_.async_resolve(
        target_.host, std::to_string(target_.port),
        [self = shared_from_this()](beast::error_code ec, tcp::resolver::results_type results) {
          self->resolved(ec, std::move(results));
        });
  }

 private:
  // The TCP stream under TLS, or the plain one.
  beast::tcp_stream& lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : tcp_; }

  void resolved(beast::error_code ec, tcp::resolver::results_type results) {
    if (ec) return fail(ec, "cannot be resolved");
    auto checked = allowed(results, target_.host, rules_, what_);
    if (auto* e = std::get_if<Error>(&checked)) return finish(*e);
    endpoints_ = std::get<std::vector<tcp::endpoint>>(std::move(checked));
    asio::async_connect(lowest().socket(), endpoints_,
                        [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
                          self->connected(ec);
                        });
  }

  void connected(beast::error_code ec) {
    if (ec) return fail(ec, "cannot be reached");
    if (!tls_) return send(tcp_);
    SSL* ssl = tls_->native_handle();
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (parseAddress(target_.host)) {
      X509_VERIFY_PARAM_set1_ip_asc(param, target_.host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, target_.host.c_str());  // SNI
      X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      X509_VERIFY_PARAM_set1_host(param, target_.host.c_str(), 0);
    }
    tls_->async_handshake(asio::ssl::stream_base::client,
                          [self = shared_from_this()](beast::error_code ec) {
                            if (ec) return self->fail(ec, "refused the TLS handshake");
                            self->send(*self->tls_);
                          });
  }

  template <class Stream>
  void send(Stream& stream) {
    auto& req = httpRequest_;
    req.method_string(request_.method);
    req.target(target_.pathAndQuery);
    req.version(11);
    bool defaultPort = target_.port == (target_.https ? 443 : 80);
    std::string host =
        target_.host.find(':') != std::string::npos ? "[" + target_.host + "]" : target_.host;
    req.set(http::field::host, defaultPort ? host : host + ":" + std::to_string(target_.port));
    req.set(http::field::user_agent, "signet");
    req.set(http::field::accept, "application/json");
    req.set(http::field::connection, "close");
    for (const auto& [name, value] : request_.headers) req.set(name, value);
    if (!request_.contentType.empty()) req.set(http::field::content_type, request_.contentType);
    req.body() = request_.body;
    if (request_.method != "GET" || !request_.body.empty()) req.prepare_payload();
    http::async_write(stream, req,
                      [self = shared_from_this(), &stream](beast::error_code ec, size_t) {
                        if (ec) return self->fail(ec, "did not take the request");
                        self->receive(stream);
                      });
  }

  // The head first, then the body: Boost 1.74's parser, reading eagerly, lets a Content-Length
  // past the body limit through when the head and the body arrive in one read; read alone, the
  // head is checked against it.
  template <class Stream>
  void receive(Stream& stream) {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(rules_.maxAnswerBytes);
    http::async_read_header(stream, buffer_, *parser_,
                            [self = shared_from_this(), &stream](beast::error_code ec, size_t) {
                              if (ec) return self->failReading(ec);
                              http::async_read(stream, self->buffer_, *self->parser_,
                                               [self](beast::error_code ec, size_t) {
                                                 if (ec) return self->failReading(ec);
                                                 self->answered();
                                               });
                            });
  }

  void failReading(beast::error_code ec) {
    if (ec == http::error::body_limit)
      return finish(failure(kFailed, what_ + ": the answer is larger than " +
                                         std::to_string(rules_.maxAnswerBytes) + " bytes"));
    fail(ec, "did not answer");
  }

  void answered() {
    auto& response = parser_->get();
    Answer a;
    a.status = static_cast<int>(response.result_int());
    a.body = std::move(response.body());
    if (auto it = response.find(http::field::cache_control); it != response.end())
      a.cacheControl = std::string(it->value());
    finish(std::move(a));
  }

  void fail(beast::error_code ec, const char* doing) {
    if (timedOut_) return finish(failure(kFailed, what_ + ": no answer in time"));
    finish(failure(kFailed, what_ + " " + doing + ": " + ec.message()));
  }

  void finish(std::variant<Answer, Error> outcome) {
    if (finished_) return;
    finished_ = true;
    timer_.cancel();
    lowest().close();
    if (slot_) {
      Engine::get().release(destination_, forRequest_);
      slot_ = false;
    }
    auto done = std::move(done_);
    done(std::move(outcome));
  }

  Request request_;
  Rules rules_;
  Target target_;
  std::string what_;
  std::string destination_;
  Completion done_;
  tcp::resolver resolver_;
  asio::steady_timer timer_;
  beast::tcp_stream tcp_;                                    // plain http://
  std::shared_ptr<asio::ssl::context> tlsContext_;           // outlives tls_, which points into it
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;  // https://
  std::vector<tcp::endpoint> endpoints_;
  http::request<http::string_body> httpRequest_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  const bool forRequest_ = RequestScope::active();  // read on the caller's thread
  bool slot_ = false;
  bool timedOut_ = false;
  bool finished_ = false;
};

template <class T>
T waitFor(std::future<std::variant<T, Error>>& future) {
  auto outcome = future.get();
  if (auto* e = std::get_if<Error>(&outcome)) throw *e;
  return std::get<T>(std::move(outcome));
}

}  // namespace

void exchangeAsync(Request request, Rules rules, Completion done) {
  if (rules.deadline == Clock::time_point{}) rules.deadline = Clock::now() + kDefaultTimeout;
  std::string what = rules.peer + " (" + request.url + ")";
  auto target = targetOf(request.url, rules, what);
  if (auto* e = std::get_if<Error>(&target)) {
    asio::post(Engine::get().io(), [done = std::move(done), e = *e] { done(e); });
    return;
  }
  auto call = std::make_shared<Call>(std::move(request), std::move(rules),
                                     std::get<Target>(std::move(target)), what, std::move(done));
  asio::post(Engine::get().io(), [call] { call->start(); });
}

Answer exchange(const Request& request, const Rules& rules) {
  if (Engine::get().onEgressThread())
    throw internalError("egress::exchange called on the egress thread; use exchangeAsync");
  std::promise<std::variant<Answer, Error>> promise;
  auto future = promise.get_future();
  exchangeAsync(request, rules, [&promise](std::variant<Answer, Error> outcome) {
    promise.set_value(std::move(outcome));
  });
  return waitFor(future);
}

std::vector<Address> resolve(const std::string& host, uint16_t port, const Rules& rules) {
  if (Engine::get().onEgressThread())
    throw internalError("egress::resolve called on the egress thread");
  std::string what = rules.peer + " (" + destinationOf(host, port) + ")";
  auto state = std::make_shared<std::promise<std::variant<std::vector<Address>, Error>>>();
  auto future = state->get_future();
  auto resolver = std::make_shared<tcp::resolver>(Engine::get().io());
  auto timer = std::make_shared<asio::steady_timer>(Engine::get().io(), rules.deadline);
  auto once = std::make_shared<bool>(false);
  auto settle = [state, once, timer](std::variant<std::vector<Address>, Error> outcome) {
    if (*once) return;
    *once = true;
    timer->cancel();
    state->set_value(std::move(outcome));
  };
  asio::post(Engine::get().io(), [=] {
    timer->async_wait([=](beast::error_code ec) {
      if (ec) return;
      resolver->cancel();
      settle(failure(kFailed, what + ": no answer in time"));
    });
    resolver->async_resolve(
        host, std::to_string(port), [=](beast::error_code ec, tcp::resolver::results_type results) {
          if (ec) return settle(failure(kFailed, what + " cannot be resolved: " + ec.message()));
          auto checked = allowed(results, host, rules, what);
          if (auto* e = std::get_if<Error>(&checked)) return settle(*e);
          std::vector<Address> out;
          for (const auto& ep : std::get<std::vector<tcp::endpoint>>(checked))
            out.push_back(addressOf(ep.address()));
          settle(std::move(out));
        });
  });
  return waitFor(future);
}

// ---- Permit ----

Permit::Permit(std::string destination, bool forRequest)
    : destination_(std::move(destination)), forRequest_(forRequest) {}
Permit::Permit(Permit&& other) noexcept
    : destination_(std::move(other.destination_)), forRequest_(other.forRequest_) {
  other.destination_.clear();
}
Permit::~Permit() {
  if (!destination_.empty()) Engine::get().release(destination_, forRequest_);
}

Permit admit(const std::string& host, uint16_t port, const std::string& peer) {
  std::string destination = destinationOf(host, port);
  bool forRequest = RequestScope::active();
  if (auto busy = Engine::get().acquire(destination, forRequest))
    throw failure(kBusy, peer + " (" + destination + "): " + *busy + "; try again shortly");
  return Permit(destination, forRequest);
}

// ---- RequestScope ----

namespace {
thread_local bool inRequest = false;
}
RequestScope::RequestScope() : outer_(inRequest) {
  inRequest = true;
}
RequestScope::~RequestScope() {
  inRequest = outer_;
}
bool RequestScope::active() {
  return inRequest;
}

// ---- DeadlineGuard ----

struct DeadlineGuard::State {
  std::mutex mutex;
  bool alive = true;
  bool expired = false;
  std::function<void()> expire;
  std::optional<asio::steady_timer> timer;
};

DeadlineGuard::DeadlineGuard(Clock::time_point deadline, std::function<void()> expire)
    : state_(std::make_shared<State>()) {
  state_->expire = std::move(expire);
  state_->timer.emplace(Engine::get().io(), deadline);
  state_->timer->async_wait([state = state_](beast::error_code ec) {
    if (ec) return;
    std::lock_guard lock(state->mutex);
    if (!state->alive) return;
    state->expired = true;
    state->expire();
  });
}

DeadlineGuard::~DeadlineGuard() {
  std::lock_guard lock(state_->mutex);
  state_->alive = false;
  asio::post(Engine::get().io(), [state = state_] { state->timer->cancel(); });
}

bool DeadlineGuard::expired() const {
  std::lock_guard lock(state_->mutex);
  return state_->expired;
}

// ---- Bounds ----

void configure(const Limits& l) {
  Engine::get().configure(l);
}
Limits limits() {
  return Engine::get().limits();
}
int inFlight() {
  return Engine::get().inFlight();
}

}  // namespace signet::egress
