#include "server/http_server.hpp"

#include <Poco/Logger.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <openssl/err.h>

#include "observability/metrics.hpp"
#include "server/rate_limiter.hpp"
#include "server/request_parser.hpp"

namespace signet {

namespace {

constexpr uint64_t kListenerId = 0;
constexpr uint64_t kWakeId = 1;
constexpr int64_t kLingerMs = 2000;  // reading what a refused body still sends, after the answer
constexpr int64_t kWriteTimeoutMs = 30'000;       // a client that stops reading its answer
constexpr size_t kReadBytesPerTurn = 256 * 1024;  // one connection's share of a loop turn

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A request line as the log may show it: control bytes and non-ASCII escaped as \xNN, so that
// what a client sends cannot move the operator's cursor or forge log lines.
std::string printable(const std::string& text) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Header text a handler or plugin produced, without CR or LF: nothing it returns can split the
// response.
std::string headerSafe(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (c == '\r' || c == '\n') c = ' ';
  return out;
}

std::string serialize(const HttpResult& r, bool head, bool close) {
  std::string reason = Poco::Net::HTTPResponse::getReasonForStatus(
      static_cast<Poco::Net::HTTPResponse::HTTPStatus>(r.status));
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason + "\r\n";
  const bool hasBody = r.status != 204 && r.status != 304;
  if (hasBody) {
    // Exactly application/json for the API: the Rust client rejects a charset parameter.
    out += "Content-Type: " + headerSafe(r.contentType) + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  }
  for (const auto& [name, value] : r.headers)
    out += headerSafe(name) + ": " + headerSafe(value) + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
  if (hasBody && !head) out += r.body;
  return out;
}

// An error the front end answers itself, before any handler: {code, message, details}.
HttpResult frontEndError(Code code, int status, const std::string& message) {
  HttpResult r = errorResult(Error(code, message));
  r.status = status;
  return r;
}

// As many descriptors as the hard limit allows: every connection is one.
size_t raiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  return static_cast<size_t>(limit.rlim_cur);
}

std::string peerAddress(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address.ss_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
  else if (address.ss_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text,
              sizeof text);
  return text;
}

// Who may touch a connection: the loop, except while `withWorker` is set. The loop sets it when
// it hands the connection's complete request to a worker; from then on only that worker touches
// the connection, and it gives it back either by clearing the flag itself once it wrote the
// answer (the usual keep-alive case: no hand-back through the loop) or through `done`.
// Connections are watched with EPOLLONESHOT, so no event for one arrives while a worker has it.
struct Connection {
  enum class Phase { kReading, kWorking, kWriting, kLingering };
  Connection(int socket, std::string address, ParserLimits limits)
      : fd(socket), peer(std::move(address)), parser(limits) {}
  int fd = -1;
  SSL* ssl = nullptr;  // with TLS: the session over fd, which every read and write goes through
  std::string peer;
  RequestParser parser;
  std::string in;  // received, not yet parsed (pipelined requests wait here)
  std::string out;
  size_t written = 0;
  Phase phase = Phase::kReading;
  bool closeAfterWrite = false;
  bool lingerAfterWrite = false;  // a refused body may still be arriving
  bool continueSent = false;
  bool peerClosed = false;  // the client shut its sending side
  int64_t requestStarted = 0;
  int64_t deadline = 0;
  // Set by the loop before a job is queued; cleared with release order by a worker that gives
  // the connection back by itself, so that the loop's acquiring read sees all it wrote.
  std::atomic<bool> withWorker{false};
  // Held by that worker while it gives the connection back and re-arms it, and taken by the
  // loop before it closes one: the socket is never closed (its number reused) under the
  // worker's epoll_ctl, nor the connection freed while the worker still holds this.
  std::mutex release;
};

struct Job {
  uint64_t id;
  Connection* connection;  // stable: the loop does not close a connection a worker holds
  HttpRequestData request;
  bool keepAlive;
};

// What recv(2) and send(2) return, for a plain or a TLS connection alike: the bytes moved, 0 at
// the end of the stream (reads), or -1 with errno (EAGAIN when the socket must become ready;
// TLS's own wants are reported so, since the loop watches the socket either way).
// SSL_read's or SSL_write's result `n`, as recv(2) or send(2) would have given it.
ssize_t asSocketResult(SSL* ssl, int n, bool reading) {
  if (n > 0) return n;
  switch (SSL_get_error(ssl, n)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      if (reading) return 0;
      break;
    case SSL_ERROR_SYSCALL:
      if (reading && errno == 0) return 0;  // the client closed without close_notify
      if (errno != 0) return -1;
      break;
  }
  // A failed handshake, a bad record: nothing more can be read or written.
  errno = reading ? ECONNRESET : EPIPE;
  return -1;
}

ssize_t receiveSome(Connection& c, char* buf, size_t size) {
  if (!c.ssl) return ::recv(c.fd, buf, size, 0);
  ERR_clear_error();
  return asSocketResult(c.ssl, SSL_read(c.ssl, buf, static_cast<int>(size)), true);
}

ssize_t sendSome(Connection& c, const char* data, size_t size) {
  if (!c.ssl) return ::send(c.fd, data, size, MSG_NOSIGNAL);
  ERR_clear_error();
  int n = SSL_write(c.ssl, data, static_cast<int>(std::min<size_t>(size, 1 << 30)));
  return asSocketResult(c.ssl, n, false);
}

}  // namespace

struct HttpServer::Impl {
  Gateway& gateway;
  std::shared_ptr<const TlsContext> tls;  // set before start(); null serves plain HTTP
  Router router;
  std::string listenerLabel;  // "main", or the plugin's "<module>/<listener>"
  ServerLimits limits;
  Poco::Net::ServerSocket socket;
  RateLimiter addressLimiter;
  int epoll = -1;
  int wake = -1;
  std::thread loop;
  std::vector<std::thread> workers;
  std::atomic<bool> stopping{false};

  // The loop's own state: only its thread touches it.
  std::unordered_map<uint64_t, Connection> connections;
  std::unordered_map<std::string, size_t> perAddress;
  uint64_t nextId = 2;

  // Handed between the loop and the workers.
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Job> jobs;
  std::vector<uint64_t> done;  // connections whose answer the loop is to write

  Impl(Gateway& g, const std::string& listen, const ListenerSpec* listener,
       const std::string& listenerModule)
      : gateway(g),
        router(g, listener, listenerModule),
        listenerLabel(listener ? listenerModule + "/" + listener->name : "main"),
        limits(g.config().server),
        socket(Poco::Net::SocketAddress(listen), 1024),
        addressLimiter(limits.rateLimit.perIpPerSecond, limits.rateLimit.burst) {
    size_t descriptors = raiseDescriptorLimit();
    // Leave room for the database, the log and the plugins' own files.
    if (limits.maxConnections == 0 || limits.maxConnections + 256 > descriptors)
      limits.maxConnections = descriptors > 512 ? descriptors - 256 : descriptors / 2;
    socket.setBlocking(false);
  }

  void start() {
    epoll = epoll_create1(EPOLL_CLOEXEC);
    wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll < 0 || wake < 0) throw internalError("cannot create the HTTP server's event loop");
    watch(socket.impl()->sockfd(), kListenerId, EPOLLIN, EPOLL_CTL_ADD);  // level, not one-shot
    watch(wake, kWakeId, EPOLLIN, EPOLL_CTL_ADD);
    int threads = gateway.config().threads;
    if (threads <= 0)
      threads = std::max(16, 8 * static_cast<int>(std::thread::hardware_concurrency()));
    for (int i = 0; i < threads; ++i) workers.emplace_back([this] { work(); });
    loop = std::thread([this] { run(); });
  }

  void stop() {
    if (stopping.exchange(true)) return;
    uint64_t one = 1;
    if (wake >= 0) [[maybe_unused]]
      auto n = ::write(wake, &one, sizeof one);
    if (loop.joinable()) loop.join();
    {
      // A worker between its check of `stopping` and its wait holds the mutex: taking it here
      // orders the notification after that wait, so no worker sleeps through it.
      std::lock_guard lock(mutex);
    }
    ready.notify_all();
    for (auto& w : workers)
      if (w.joinable()) w.join();
    workers.clear();
    for (auto& [id, c] : connections) {
      if (c.ssl) SSL_free(c.ssl);
      ::close(c.fd);
    }
    connections.clear();
    if (epoll >= 0) ::close(epoll);
    if (wake >= 0) ::close(wake);
    epoll = wake = -1;
    socket.close();
  }

  void watch(int fd, uint64_t id, uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    epoll_ctl(epoll, op, fd, &ev);
  }

  // ---- the event loop ----

  void run() {
    epoll_event events[256];
    int64_t nextSweep = 0;
    while (!stopping) {
      int n = epoll_wait(epoll, events, 256, 100);
      for (int i = 0; i < n; ++i) {
        uint64_t id = events[i].data.u64;
        if (id == kListenerId) {
          acceptAll();
        } else if (id == kWakeId) {
          uint64_t count;
          while (::read(wake, &count, sizeof count) > 0) {
          }
          finishJobs();
        } else {
          auto it = connections.find(id);
          // One-shot: no event is armed while a worker holds the connection; the acquiring
          // read orders what that worker wrote before the event it re-armed.
          if (it == connections.end() || it->second.withWorker.load(std::memory_order_acquire))
            continue;
          uint32_t e = events[i].events;
          // A reset connection: nothing more can be read or written.
          if (e & (EPOLLHUP | EPOLLERR)) {
            closeConnection(id);
            continue;
          }
          if (e & (EPOLLIN | EPOLLRDHUP)) readable(id, it->second);
          it = connections.find(id);
          if (it != connections.end() && !it->second.withWorker.load(std::memory_order_acquire) &&
              (e & EPOLLOUT))
            writable(id, it->second);
          rearm(id);
        }
      }
      int64_t now = nowMs();
      if (now >= nextSweep) {
        sweep(now);
        nextSweep = now + 100;
      }
    }
  }

  void acceptAll() {
    for (;;) {
      sockaddr_storage address{};
      socklen_t size = sizeof address;
      int fd = accept4(socket.impl()->sockfd(), reinterpret_cast<sockaddr*>(&address), &size,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or out of descriptors until some close
      std::string peer = peerAddress(address);
      size_t& mine = perAddress[peer];
      if (connections.size() >= limits.maxConnections || mine >= limits.maxConnectionsPerAddress) {
        bool total = connections.size() >= limits.maxConnections;
        if (tls) {  // no handshake yet: a plaintext answer would be noise to the client
          ::close(fd);
          logRefusal(peer, 503, total ? "connection limit" : "per-address connection limit",
                     total ? "connections_total" : "connections_per_address");
          if (mine == 0) perAddress.erase(peer);
          continue;
        }
        refuseAtOnce(fd, peer,
                     total ? "the server holds its limit of " +
                                 std::to_string(limits.maxConnections) + " connections"
                           : "client address " + peer + " holds its limit of " +
                                 std::to_string(limits.maxConnectionsPerAddress) + " connections",
                     total);
        if (mine == 0) perAddress.erase(peer);
        continue;
      }
      ++mine;
      uint64_t id = nextId++;
      Connection& c = connections.try_emplace(id, fd, peer, parserLimits()).first->second;
      c.deadline = nowMs() + limits.idleTimeoutMs;
      if (tls && !(c.ssl = tls->accept(fd))) {
        closeConnection(id);
        continue;
      }
      watch(fd, id, kReadEvents, EPOLL_CTL_ADD);
    }
  }

  ParserLimits parserLimits() const {
    return {.maxHeadBytes = limits.maxHeadBytes,
            .maxHeaders = 100,
            .maxBodyBytes = gateway.config().maxBodyBytes};
  }

  // Past a connection limit: a 503 written in one go if the socket takes it, then closed.
  void refuseAtOnce(int fd, const std::string& peer, const std::string& why, bool total) {
    HttpResult r = frontEndError(Code::kUnavailable, 503, why + "; try again shortly");
    router.addCors(r);
    r.headers.emplace_back("Retry-After", "1");
    std::string bytes = serialize(r, false, true);
    [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::close(fd);
    logRefusal(peer, 503, why, total ? "connections_total" : "connections_per_address");
  }

  // What a connection the loop holds waits for, armed once: reading (or lingering), or writing.
  static constexpr uint32_t kReadEvents = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  static constexpr uint32_t kWriteEvents = EPOLLOUT | EPOLLONESHOT;

  // After the loop handled something of a connection: arm its next event, unless it was closed
  // or went to a worker (which arms it when it is done). A client that shut its sending side
  // is not read again (its end of stream would wake the loop on every turn).
  void rearm(uint64_t id) {
    auto it = connections.find(id);
    if (it == connections.end()) return;
    Connection& c = it->second;
    if (c.withWorker.load(std::memory_order_acquire)) return;
    if (c.phase == Connection::Phase::kWriting)
      watch(c.fd, id, kWriteEvents, EPOLL_CTL_MOD);
    else if (!c.peerClosed)
      watch(c.fd, id, kReadEvents, EPOLL_CTL_MOD);
  }

  void closeConnection(uint64_t id) {
    auto it = connections.find(id);
    if (it == connections.end()) return;
    // A worker that just gave the connection back may still be inside its re-arm.
    { std::lock_guard wait(it->second.release); }
    epoll_ctl(epoll, EPOLL_CTL_DEL, it->second.fd, nullptr);
    if (it->second.ssl) SSL_free(it->second.ssl);
    ::close(it->second.fd);
    auto a = perAddress.find(it->second.peer);
    if (a != perAddress.end() && --a->second == 0) perAddress.erase(a);
    connections.erase(it);
  }

  void readable(uint64_t id, Connection& c) {
    if (c.phase == Connection::Phase::kWorking || c.phase == Connection::Phase::kWriting) {
      // Not reading now; a hang-up is noticed when the answer is written.
      return;
    }
    char buf[16384];
    size_t total = 0;
    for (;;) {
      ssize_t n = receiveSome(c, buf, sizeof buf);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        closeConnection(id);
        return;
      }
      if (n == 0) {
        // The client finished sending. A request it completed is still answered; then the
        // connection closes.
        if (c.phase == Connection::Phase::kLingering || c.peerClosed) {
          closeConnection(id);
          return;
        }
        c.peerClosed = true;
        break;
      }
      if (n < 0) break;
      if (c.phase != Connection::Phase::kLingering) c.in.append(buf, static_cast<size_t>(n));
      total += static_cast<size_t>(n);
      // A short read of a plain socket took what had arrived: asking again would only return
      // EAGAIN. What arrives meanwhile is reported once the connection is re-armed.
      if (!c.ssl && static_cast<size_t>(n) < sizeof buf) break;
      // The rest next turn: others get theirs. Not while TLS holds decrypted bytes, which the
      // socket's readiness would never report again.
      if (total >= kReadBytesPerTurn && !(c.ssl && SSL_pending(c.ssl) > 0)) break;
    }
    if (c.phase == Connection::Phase::kReading) parse(id, c);
    // parse() may have answered and closed the connection, or handed it to a worker.
    auto it = connections.find(id);
    if (it != connections.end() && !it->second.withWorker.load(std::memory_order_acquire) &&
        it->second.peerClosed && it->second.phase == Connection::Phase::kReading)
      closeConnection(id);  // it ended without a whole request
  }

  void parse(uint64_t id, Connection& c) {
    const int64_t now = nowMs();
    while (c.phase == Connection::Phase::kReading && !c.in.empty()) {
      bool wasStarted = c.parser.started();
      bool hadHead = c.parser.headComplete();
      size_t used = c.parser.feed(c.in.data(), c.in.size());
      c.in.erase(0, used);
      if (!wasStarted && c.parser.started()) {
        c.requestStarted = now;
        c.deadline = now + limits.headerTimeoutMs;
      }
      if (!hadHead && c.parser.headComplete())
        c.deadline = c.requestStarted + limits.headerTimeoutMs + limits.bodyTimeoutMs;
      auto state = c.parser.state();
      if (state == RequestParser::State::kError) {
        int status = c.parser.errorStatus();
        Code code = status == 505 ? Code::kUnimplemented : Code::kInvalidArgument;
        HttpResult r = frontEndError(code, status, c.parser.errorMessage());
        router.addCors(r);
        logRefusal(c.peer, status, c.parser.errorMessage(), "malformed_request");
        answer(id, c, serialize(r, false, true), true);
        return;
      }
      if (state == RequestParser::State::kDone) {
        dispatch(id, c);
        return;
      }
      if (c.parser.headComplete() && c.parser.expectsContinue() && !c.continueSent) {
        static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] auto n = sendSome(c, kContinue.data(), kContinue.size());
        c.continueSent = true;
      }
      if (used == 0) break;
    }
  }

  void dispatch(uint64_t id, Connection& c) {
    HttpRequestData& request = c.parser.request();
    const bool keepAlive = c.parser.keepAlive();
    const bool head = request.method == "HEAD";
    c.lingerAfterWrite = request.bodyTooLarge;
    // Per client address: a flood is answered 429 here, without taking a worker.
    if (auto wait = addressLimiter.take(c.peer, nowMs())) {
      HttpResult r = frontEndError(Code::kResourceExhausted, 429,
                                   "rate limit: client address " + c.peer + " may send " +
                                       std::to_string(limits.rateLimit.perIpPerSecond) +
                                       " requests a second (limits.rateLimit.perIpPerSecond)");
      r.headers.emplace_back("Retry-After", std::to_string((*wait + 999) / 1000));
      router.addCors(r);
      logRefusal(c.peer, 429, "per-address rate limit", "rate_limit_address");
      answer(id, c, serialize(r, head, !keepAlive), !keepAlive);
      return;
    }
    // The connection is the worker's from the moment it can take the job: set up first.
    c.phase = Connection::Phase::kWorking;
    c.deadline = 0;                                       // the handler's time is the handler's
    c.withWorker.store(true, std::memory_order_relaxed);  // the queue's mutex publishes it
    bool queued = false;
    {
      std::lock_guard lock(mutex);
      if (jobs.size() < limits.maxQueuedRequests) {
        request.peer = c.peer;
        jobs.push_back(Job{id, &c, std::move(request), keepAlive});
        queued = true;
      }
    }
    if (queued) {
      // Outside the lock: a worker woken while the loop still held it would only wake to wait
      // for it (two more futex calls and a context switch a request).
      ready.notify_one();
      return;
    }
    c.withWorker.store(false, std::memory_order_relaxed);
    c.phase = Connection::Phase::kReading;
    HttpResult r = frontEndError(Code::kUnavailable, 503,
                                 "the server is busy: " + std::to_string(limits.maxQueuedRequests) +
                                     " requests are waiting for a worker; try again shortly");
    r.headers.emplace_back("Retry-After", "1");
    router.addCors(r);
    logRefusal(c.peer, 503, "worker queue full", "queue_full");
    answer(id, c, serialize(r, head, !keepAlive), !keepAlive);
  }

  void answer(uint64_t id, Connection& c, std::string bytes, bool close) {
    c.out = std::move(bytes);
    c.written = 0;
    c.closeAfterWrite = close;
    c.phase = Connection::Phase::kWriting;
    c.deadline = nowMs() + kWriteTimeoutMs;
    writable(id, c);
  }

  void writable(uint64_t id, Connection& c) {
    if (c.phase != Connection::Phase::kWriting) return;
    while (c.written < c.out.size()) {
      ssize_t n = sendSome(c, c.out.data() + c.written, c.out.size() - c.written);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // rearm() waits for room
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closeConnection(id);
        return;
      }
      c.written += static_cast<size_t>(n);
    }
    c.out.clear();
    const int64_t now = nowMs();
    if (c.peerClosed) {
      closeConnection(id);
      return;
    }
    if (c.closeAfterWrite) {
      if (!c.lingerAfterWrite) {
        closeConnection(id);
        return;
      }
      // The client may still be sending the body we refused; read and drop it for a moment
      // so that it reads our answer instead of a reset.
      if (c.ssl) SSL_shutdown(c.ssl);  // close_notify, then the socket's own end
      ::shutdown(c.fd, SHUT_WR);
      c.phase = Connection::Phase::kLingering;
      c.deadline = now + kLingerMs;
      return;
    }
    readNext(c, now);
    if (!c.in.empty()) parse(id, c);  // a pipelined request already here
  }

  // A keep-alive connection whose answer went out waits for its next request.
  void readNext(Connection& c, int64_t now) const {
    c.parser.reset();
    c.continueSent = false;
    c.phase = Connection::Phase::kReading;
    c.deadline = now + limits.idleTimeoutMs;
  }

  // Answers a worker left for the loop to write (see finishJob).
  void finishJobs() {
    std::vector<uint64_t> finished;
    {
      std::lock_guard lock(mutex);
      finished.swap(done);
    }
    for (uint64_t id : finished) {
      Connection& c = connections.at(id);                    // not closed while a worker held it
      c.withWorker.store(false, std::memory_order_relaxed);  // the mutex ordered its writes
      c.deadline = nowMs() + kWriteTimeoutMs;
      writable(id, c);
      rearm(id);
    }
  }

  void sweep(int64_t now) {
    std::vector<uint64_t> expired;
    for (auto& [id, c] : connections)
      if (!c.withWorker.load(std::memory_order_acquire) && c.deadline != 0 && now >= c.deadline)
        expired.push_back(id);
    for (uint64_t id : expired) {
      Connection& c = connections.at(id);
      if (c.phase == Connection::Phase::kReading && c.parser.started()) {
        std::string why = c.parser.headComplete()
                              ? "the request's body did not arrive within " +
                                    std::to_string(limits.headerTimeoutMs + limits.bodyTimeoutMs) +
                                    " ms"
                              : "the request's head did not arrive within " +
                                    std::to_string(limits.headerTimeoutMs) + " ms";
        logRefusal(c.peer, 408, why, "timeout");
        HttpResult r = frontEndError(Code::kInvalidArgument, 408, why);
        answer(id, c, serialize(r, false, true), true);
        rearm(id);
      } else {
        closeConnection(id);  // idle past its time, or not reading its answer
      }
    }
  }

  // Refusals are counted by `reason` (a fixed label), and logged at most once a second, with how
  // many were not, so that a flood cannot fill the disk.
  void logRefusal(const std::string& peer, int status, const std::string& why, const char* reason) {
    Metrics::global().count("signet_refusals_total", {{"reason", reason}});
    static std::atomic<int64_t> lastLogged{0};
    static std::atomic<int64_t> unlogged{0};
    int64_t now = nowMs();
    int64_t last = lastLogged.load();
    if (now - last < 1000 || !lastLogged.compare_exchange_strong(last, now)) {
      ++unlogged;
      return;
    }
    Poco::Logger::get("signet.http")
        .warning("refused %s: %d %s (%Ld more refusals in the last second not logged)",
                 printable(peer), status, printable(why), unlogged.exchange(0));
  }

  // One JSON object a line: what a log pipeline indexes without a parser of our own. The path
  // and method are the client's, escaped by the JSON writer; never a body, a stamp or a secret.
  static std::string requestLogLine(const Job& job, const HttpResult& result, int64_t micros) {
    json::Object o = json::object();
    o->set("requestId", result.log.requestId);
    // The client's bytes, escaped to printable ASCII first: a line stays one readable line.
    o->set("peer", printable(job.request.peer));
    o->set("method", printable(job.request.method));
    o->set("path", printable(job.request.path));
    o->set("status", result.status);
    o->set("durationUs", micros);
    o->set("bytesIn", job.request.body.size());
    if (!result.log.organizationId.empty()) o->set("organizationId", result.log.organizationId);
    if (!result.log.activityType.empty()) o->set("activityType", result.log.activityType);
    if (!result.log.activityStatus.empty()) o->set("activityStatus", result.log.activityStatus);
    return json::stringify(o);
  }

  void countRequest(const HttpResult& result, int64_t micros) {
    Metrics& metrics = Metrics::global();
    metrics.count("signet_http_requests_total", {{"listener", listenerLabel},
                                                 {"route", result.log.route},
                                                 {"status", std::to_string(result.status)}});
    metrics.observe("signet_http_request_duration_seconds",
                    {{"listener", listenerLabel}, {"route", result.log.route}},
                    static_cast<double>(micros) / 1e6);
    if (!result.log.activityType.empty())
      metrics.count("signet_activities_total",
                    {{"type", result.log.activityType}, {"status", result.log.activityStatus}});
  }

  // ---- the workers ----

  void work() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [this] { return stopping || !jobs.empty(); });
        if (stopping) return;
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      auto started = std::chrono::steady_clock::now();
      HttpResult result = router.handle(job.request);
      bool head = job.request.method == "HEAD";
      std::string bytes = serialize(result, head, !job.keepAlive);
      auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
      // Refused credentials are what a flood produces: logged at most once a second. The
      // request line is escaped only when it is printed.
      static Poco::Logger& requests = Poco::Logger::get("signet.http");
      countRequest(result, micros);
      if (result.status == 401 || result.status == 429)
        logRefusal(job.request.peer, result.status, job.request.method + " " + job.request.path,
                   result.status == 401 ? "unauthenticated" : "rate_limit_organization");
      else if (requests.information())
        requests.information(requestLogLine(job, result, micros));
      // Counted and logged before the client can have its answer (and send its next request).
      finishJob(job, std::move(bytes));  // from here on the connection is not this worker's
    }
  }

  // The worker writes the answer itself when it can: a keep-alive connection with nothing
  // pipelined behind its request, whose socket takes the whole answer at once, is given back
  // ready for its next request and re-armed here, without waking the loop (which would cost
  // an eventfd write and read, an epoll_wait and often a context switch per request). Anything
  // else (a closing connection, a pipelined request to parse, an answer the socket takes only
  // in part) is handed to the loop with what was written so far.
  void finishJob(const Job& job, std::string bytes) {
    Connection& c = *job.connection;
    size_t written = 0;
    if (job.keepAlive && c.in.empty() && !c.peerClosed) {
      while (written < bytes.size()) {
        ssize_t n = sendSome(c, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // no room (the loop waits for it), or an error the loop meets again
        written += static_cast<size_t>(n);
      }
      if (written == bytes.size()) {
        std::lock_guard hold(c.release);
        readNext(c, nowMs());
        c.withWorker.store(false, std::memory_order_release);
        watch(c.fd, job.id, kReadEvents, EPOLL_CTL_MOD);
        return;
      }
    }
    c.out = std::move(bytes);
    c.written = written;
    c.closeAfterWrite = !job.keepAlive;
    c.phase = Connection::Phase::kWriting;
    bool loopKnows;  // answers already wait: the loop was woken for them and takes them all
    {
      std::lock_guard lock(mutex);
      loopKnows = !done.empty();
      done.push_back(job.id);
    }
    if (loopKnows) return;
    uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake, &one, sizeof one);
  }
};

HttpServer::HttpServer(Gateway& gateway, const std::string& listen, const ListenerSpec* listener,
                       const std::string& listenerModule)
    : impl_(std::make_unique<Impl>(gateway, listen, listener, listenerModule)) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::useTls(std::shared_ptr<const TlsContext> tls) {
  impl_->tls = std::move(tls);
}

void HttpServer::start() {
  impl_->start();
}

void HttpServer::stop() {
  if (impl_) impl_->stop();
}

uint16_t HttpServer::port() const {
  return impl_->socket.address().port();
}

}  // namespace signet
