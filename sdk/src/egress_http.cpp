// The call half of the egress policy: one HTTP/1.1 exchange over Boost.Beast, its I/O on the
// egress thread (egress_engine.hpp), bounded in number, under one deadline.
//
// Why Beast and a thread of its own: a blocking client (Poco's) bounds each read and write,
// not the whole exchange, so a peer that sends a byte every few seconds holds its caller for
// as long as it likes; and it holds the caller's thread while it waits. Here a timer ends the
// call at the deadline whatever it is doing (resolving, connecting, reading), and the caller
// may wait for the completion or not wait at all (exchangeAsync).
#include <Poco/URI.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <future>

#include "egress_engine.hpp"

namespace signet::egress {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace detail;

namespace {

// For a caller that set no deadline.
constexpr auto kDefaultTimeout = std::chrono::seconds(10);

Clock::time_point deadlineOf(const Rules& rules) {
  return rules.deadline == Clock::time_point{} ? Clock::now() + kDefaultTimeout : rules.deadline;
}

struct Target {
  bool https = false;
  std::string host;  // without brackets
  uint16_t port = 0;
  std::string pathAndQuery;
};

std::variant<Target, Error> targetOf(const std::string& url, const Rules& rules,
                                     const std::string& what) {
  // A control byte or a space would end up in the request line or a header: refused whole.
  if (std::any_of(url.begin(), url.end(), [](unsigned char c) { return c <= 0x20 || c == 0x7f; }))
    return failure(kRefused, what + ": the URL holds a space or a control character");
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
  t.host = hostOf(uri.getHost());
  if (t.host.empty()) return failure(kRefused, what + ": the URL names no host");
  t.port = uri.getPort();
  t.pathAndQuery = uri.getPathEtc();
  if (t.pathAndQuery.empty() || t.pathAndQuery[0] != '/') t.pathAndQuery = "/" + t.pathAndQuery;
  return t;
}

// One exchange in flight: owns its sockets, its timer and its slot; completes once. Every step
// runs on the egress thread; a step that finds the call finished (its deadline passed) returns.
class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(Request request, Rules rules, Target target, std::string what, Completion done)
      : request_(std::move(request)),
        rules_(std::move(rules)),
        target_(std::move(target)),
        what_(std::move(what)),
        destination_(destinationOf(target_.host, target_.port)),
        done_(std::move(done)),
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
    step([&] {
      if (auto busy = Engine::get().acquire(destination_, forRequest_))
        return finish(failure(kBusy, what_ + ": " + *busy + "; try again shortly"));
      slot_ = true;
      timer_.expires_at(rules_.deadline);
      timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->finish(failure(kFailed, self->what_ + ": no answer in time"));
      });
      auto self = shared_from_this();
      bool queued = Engine::get().resolver().resolve(
          target_.host, target_.port, [self](ResolverPool::Outcome found) {
            asio::post(Engine::get().io(),
                       [self, found = std::move(found)] { self->resolved(found); });
          });
      if (!queued)
        finish(failure(kBusy, what_ + ": too many names are being resolved; try again shortly"));
    });
  }

 private:
  // The TCP stream under TLS, or the plain one.
  beast::tcp_stream& lowest() { return tls_ ? beast::get_lowest_layer(*tls_) : tcp_; }

  // Runs a step of the call unless it has finished; what the step throws finishes it.
  template <class F>
  void step(F&& f) {
    if (finished_) return;
    try {
      f();
    } catch (const std::exception& e) {
      finish(failure(kFailed, what_ + ": " + e.what()));
    }
  }

  void resolved(const ResolverPool::Outcome& found) {
    step([&] {
      if (auto* why = std::get_if<std::string>(&found))
        return finish(
            failure(kFailed, what_ + ": " + target_.host + " cannot be resolved: " + *why));
      auto checked =
          allowed(std::get<std::vector<tcp::endpoint>>(found), target_.host, rules_, what_);
      if (auto* e = std::get_if<Error>(&checked)) return finish(*e);
      endpoints_ = std::get<std::vector<tcp::endpoint>>(std::move(checked));
      asio::async_connect(lowest().socket(), endpoints_,
                          [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
                            self->connected(ec);
                          });
    });
  }

  void connected(beast::error_code ec) {
    step([&] {
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
                              self->step([&] {
                                if (ec) return self->fail(ec, "refused the TLS handshake");
                                self->send(*self->tls_);
                              });
                            });
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
                        self->step([&] {
                          if (ec) return self->fail(ec, "did not take the request");
                          self->receive(stream);
                        });
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
                              self->step([&] {
                                if (ec) return self->failReading(ec);
                                http::async_read(stream, self->buffer_, *self->parser_,
                                                 [self](beast::error_code ec, size_t) {
                                                   self->step([&] {
                                                     if (ec) return self->failReading(ec);
                                                     self->answered();
                                                   });
                                                 });
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
    finish(failure(kFailed, what_ + " " + doing + ": " + ec.message()));
  }

  // Ends the call once: closes what is open (whatever waits on it ends with operation_aborted
  // and finds the call finished), frees the slot, and completes.
  void finish(std::variant<Answer, Error> outcome) {
    if (finished_) return;
    finished_ = true;
    timer_.cancel();
    beast::error_code ignored;
    lowest().socket().close(ignored);
    if (slot_) {
      Engine::get().release(destination_, forRequest_);
      slot_ = false;
    }
    auto done = std::move(done_);
    try {
      done(std::move(outcome));
    } catch (...) {
      // The caller's completion is the caller's: it must not end the egress thread.
    }
  }

  Request request_;
  Rules rules_;
  Target target_;
  std::string what_;
  std::string destination_;
  Completion done_;
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
  bool finished_ = false;
};

template <class T>
T waitFor(std::future<std::variant<T, Error>>& future) {
  auto outcome = future.get();
  if (auto* e = std::get_if<Error>(&outcome)) throw *e;
  return std::get<T>(std::move(outcome));
}

}  // namespace

std::string hostOf(std::string host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}

void exchangeAsync(Request request, Rules rules, Completion done) {
  rules.deadline = deadlineOf(rules);
  std::string what = rules.peer + " (" + request.url + ")";
  auto target = targetOf(request.url, rules, what);
  if (auto* e = std::get_if<Error>(&target)) {
    asio::post(Engine::get().io(), [done = std::move(done), e = *e] {
      try {
        done(e);
      } catch (...) {
      }
    });
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
  std::string what = rules.peer + " (" + destinationOf(host, port) + ")";
  // Shared with the resolver thread, which may answer after the caller stopped waiting.
  struct Wait {
    std::mutex mutex;
    std::condition_variable done;
    std::optional<ResolverPool::Outcome> outcome;
  };
  auto wait = std::make_shared<Wait>();
  bool queued = Engine::get().resolver().resolve(hostOf(host), port, [wait](auto found) {
    std::lock_guard lock(wait->mutex);
    wait->outcome = std::move(found);
    wait->done.notify_one();
  });
  if (!queued)
    throw failure(kBusy, what + ": too many names are being resolved; try again shortly");
  std::unique_lock lock(wait->mutex);
  if (!wait->done.wait_until(lock, deadlineOf(rules), [&] { return wait->outcome.has_value(); }))
    throw failure(kFailed, what + ": no answer in time");
  if (auto* why = std::get_if<std::string>(&*wait->outcome))
    throw failure(kFailed, what + " cannot be resolved: " + *why);
  auto checked = allowed(std::get<std::vector<tcp::endpoint>>(*wait->outcome), host, rules, what);
  if (auto* e = std::get_if<Error>(&checked)) throw *e;
  std::vector<Address> out;
  for (const auto& ep : std::get<std::vector<tcp::endpoint>>(checked)) {
    Address a;
    if (ep.address().is_v4()) {
      auto b = ep.address().to_v4().to_bytes();
      std::copy(b.begin(), b.end(), a.bytes.begin());
      a.v4 = true;
    } else {
      a.bytes = ep.address().to_v6().to_bytes();
    }
    out.push_back(a);
  }
  return out;
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
  std::string destination = destinationOf(hostOf(host), port);
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
    try {
      state->expire();
    } catch (...) {
    }
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
