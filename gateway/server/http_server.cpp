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

#include "server/client_address.hpp"
#include "server/cpu_gate.hpp"
#include "server/rate_limiter.hpp"
#include "server/request_parser.hpp"
#include "signet/egress.hpp"
#include "signet/encoding.hpp"
#include "signet/memory.hpp"
#include "signet/metrics.hpp"

namespace signet {

namespace {

constexpr uint64_t kListenerId = 0;
constexpr uint64_t kWakeId = 1;
constexpr int64_t kLingerMs = 2000;  // reading what a refused body still sends, after the answer
constexpr int64_t kWriteTimeoutMs = 30'000;       // a client that stops reading its answer
constexpr size_t kReadBytesPerTurn = 256 * 1024;  // read of one event before the next is taken

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A request line as the log may show it: control bytes and non-ASCII escaped as \xNN, so that
// what a client sends cannot move the operator's cursor or forge log lines.
std::string printable(const std::string& text) {
  return escapeBytes(text, [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; });
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

// What the request log and the answer need of a request, kept while its answer waits for a
// commit: the request itself is gone by then.
struct RequestSummary {
  std::string peer, method, path;
  size_t bytesIn = 0;
  bool keepAlive = true;
  std::chrono::steady_clock::time_point started;
};

// A request whose answer waits for its write's commit (Router::start).
struct Awaiting {
  PendingAnswer pending;
  RequestSummary request;
};

// A connection is touched only by the thread that holds its `hold`: the one handling an event
// of it (reading, running its request, writing), the sweep, or the one answering it from a
// commit (while it waits for that, no other thread has reason to touch it). Connections are watched
// one-shot, so an event is delivered to one thread, and the next is armed only when that
// thread is done with it.
struct Connection {
  enum class Phase { kReading, kWorking, kWriting, kLingering };
  Connection(uint64_t key, int socket, std::string address, ParserLimits limits)
      : id(key), fd(socket), peer(std::move(address)), parser(limits) {}
  const uint64_t id;  // epoll's handle for it: a number, never reused, unlike the socket's
  int fd = -1;
  SSL* ssl = nullptr;  // with TLS: the session over fd, which every read and write goes through
  std::string peer;
  RequestParser parser;
  std::string in;  // received, not yet parsed (pipelined requests wait here)
  std::string out;
  size_t written = 0;
  // kWorking: its request waits in the queue for a thread, or for a commit (`awaiting`)
  Phase phase = Phase::kReading;
  std::optional<Awaiting> awaiting;
  bool closeAfterWrite = false;
  bool lingerAfterWrite = false;  // a refused body may still be arriving
  bool continueSent = false;
  bool peerClosed = false;  // the client shut its sending side
  bool closed = false;      // by another thread meanwhile: whatever is left of it is dropped
  int64_t requestStarted = 0;
  int64_t deadline = 0;
  std::mutex hold;
};
using ConnectionPtr = std::shared_ptr<Connection>;

// A complete request waiting for a handler slot.
struct Job {
  ConnectionPtr connection;
  HttpRequestData request;
  bool keepAlive;
};

// What recv(2) and send(2) return, for a plain or a TLS connection alike: the bytes moved, 0 at
// the end of the stream (reads), or -1 with errno (EAGAIN when the socket must become ready;
// TLS's own wants are reported so, since epoll watches the socket either way).
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
  int wake = -1;  // written once, at stop; never read, so every thread's epoll_wait sees it
  std::vector<std::thread> threads;
  CpuGate gate{gateway.config().threadsRunning > 0 ? gateway.config().threadsRunning
                                                   : CpuGate::perMachine()};
  std::atomic<bool> stopping{false};
  std::atomic<int64_t> nextSweep{0};

  // Every open connection, and how many each client address holds.
  std::mutex connectionsMutex;
  std::unordered_map<uint64_t, ConnectionPtr> connections;
  std::unordered_map<std::string, size_t> perAddress;
  uint64_t nextId = 2;

  // Handler slots: at most `slots` requests run at once, on whichever threads read them; past
  // that, complete requests wait here (up to maxQueuedRequests, then 503). There is one thread
  // more than slots, so one is always free to read, refuse and queue.
  std::mutex queueMutex;
  std::deque<Job> jobs;
  int slots = 0;
  int running = 0;

  // Answers that wait for a commit: this thread's, to be posted once it holds no connection
  // (postAwaiting); and how many are posted and not answered yet, which stop() waits for.
  static thread_local std::vector<ConnectionPtr> toPost;
  std::mutex awaitingMutex;
  std::condition_variable awaitingDone;
  int awaitingCommits = 0;

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
    watch(socket.impl()->sockfd(), kListenerId, kListenerEvents, EPOLL_CTL_ADD);
    watch(wake, kWakeId, EPOLLIN, EPOLL_CTL_ADD);  // level: it wakes every thread in turn
    slots = gateway.config().threads;
    if (slots <= 0) slots = std::max(16, 8 * static_cast<int>(std::thread::hardware_concurrency()));
    for (int i = 0; i < slots + 1; ++i) threads.emplace_back([this] { serve(); });
  }

  void stop() {
    if (stopping.exchange(true)) return;
    uint64_t one = 1;
    if (wake >= 0) [[maybe_unused]]
      auto n = ::write(wake, &one, sizeof one);
    gate.wakeAll();
    for (auto& t : threads)
      if (t.joinable()) t.join();
    threads.clear();
    {
      // Answers posted to a batch still running: each is written (or dropped) before the
      // connections go.
      std::unique_lock lock(awaitingMutex);
      awaitingDone.wait(lock, [this] { return awaitingCommits == 0; });
    }
    jobs.clear();
    for (auto& [id, c] : connections) {
      if (c->ssl) SSL_free(c->ssl);
      ::close(c->fd);
    }
    connections.clear();
    if (epoll >= 0) ::close(epoll);
    if (wake >= 0) ::close(wake);
    epoll = wake = -1;
    socket.close();
  }

  // One-shot: an event goes to one thread, and nothing more is heard of the socket until that
  // thread arms it again.
  static constexpr uint32_t kListenerEvents = EPOLLIN | EPOLLONESHOT;
  static constexpr uint32_t kReadEvents = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  static constexpr uint32_t kWriteEvents = EPOLLOUT | EPOLLONESHOT;

  void watch(int fd, uint64_t id, uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    epoll_ctl(epoll, op, fd, &ev);
  }

  // ---- every thread: leader and follower in turn ----

  // Each thread takes one event at a time from the shared epoll and does all it calls for
  // itself: reads, parses, runs the request and writes the answer. No request is handed from
  // one thread to another unless every handler slot is taken (then it waits in `jobs`).
  void serve() {
    // A thread idle for a second gives back what it freed: the allocator keeps it for the
    // thread's next allocation, which an idle thread does not make (a burst's memory would stay).
    IdleRelease idle;
    // Only a thread holding one of the gate's permits polls (cpu_gate.hpp).
    CpuGate::Seat seat(gate);
    while (!stopping) {
      if (!seat.enter(stopping, std::chrono::milliseconds(100))) {
        idle.waitedIdle();
        continue;
      }
      epoll_event event{};
      if (epoll_wait(epoll, &event, 1, 100) == 1) {
        idle.worked();
        CpuGate::Work work(seat);
        if (event.data.u64 == kListenerId) {
          acceptAll();
          watch(socket.impl()->sockfd(), kListenerId, kListenerEvents, EPOLL_CTL_MOD);
        } else if (event.data.u64 != kWakeId) {
          handle(event.data.u64, event.events);
          postAwaiting();
        }
      } else {
        idle.waitedIdle();
      }
      if (runQueued(seat)) idle.worked();
      sweepWhenDue();
      seat.leaveIfOver();
    }
  }

  ConnectionPtr find(uint64_t id) {
    std::lock_guard lock(connectionsMutex);
    auto it = connections.find(id);
    return it == connections.end() ? nullptr : it->second;
  }

  void handle(uint64_t id, uint32_t events) {
    ConnectionPtr held = find(id);
    if (!held) return;
    Connection& c = *held;
    std::lock_guard hold(c.hold);
    if (c.closed) return;
    if (events & (EPOLLHUP | EPOLLERR)) {  // reset: nothing more can be read or written
      closeConnection(c);
      return;
    }
    if (events & (EPOLLIN | EPOLLRDHUP)) readable(held);
    if (!c.closed && (events & EPOLLOUT) && writable(c)) drive(held);
    // Pipelined requests behind an answer written from a commit (answerFromCommit).
    if (!c.closed && c.phase == Connection::Phase::kReading && !c.in.empty()) drive(held);
    rearm(c);
  }

  // What the connection waits for next, armed once; nothing while its request is queued.
  void rearm(Connection& c) {
    if (c.closed || c.phase == Connection::Phase::kWorking) return;
    if (c.phase == Connection::Phase::kWriting)
      watch(c.fd, c.id, kWriteEvents, EPOLL_CTL_MOD);
    else if (!c.peerClosed)  // its end of stream would be reported on every turn
      watch(c.fd, c.id, kReadEvents, EPOLL_CTL_MOD);
  }

  void acceptAll() {
    for (;;) {
      sockaddr_storage address{};
      socklen_t size = sizeof address;
      int fd = accept4(socket.impl()->sockfd(), reinterpret_cast<sockaddr*>(&address), &size,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or out of descriptors until some close
      std::string peer = peerAddress(address);
      ConnectionPtr c;
      std::string refusal;
      bool total = false;
      {
        std::lock_guard lock(connectionsMutex);
        size_t& mine = perAddress[peer];
        total = connections.size() >= limits.maxConnections;
        // A trusted proxy carries everyone's connections: only the total bounds it.
        const bool bounded =
            limits.trustedProxies.empty() || !isTrustedProxy(peer, limits.trustedProxies);
        if (total || (bounded && mine >= limits.maxConnectionsPerAddress)) {
          refusal = total ? "the server holds its limit of " +
                                std::to_string(limits.maxConnections) + " connections"
                          : "client address " + peer + " holds its limit of " +
                                std::to_string(limits.maxConnectionsPerAddress) + " connections";
          if (mine == 0) perAddress.erase(peer);
        } else {
          ++mine;
          uint64_t id = nextId++;
          c = std::make_shared<Connection>(id, fd, peer, parserLimits());
          connections.emplace(id, c);
        }
      }
      if (!c) {
        if (tls) {  // no handshake yet: a plaintext answer would be noise to the client
          ::close(fd);
          logRefusal(peer, 503, total ? "connection limit" : "per-address connection limit",
                     total ? "connections_total" : "connections_per_address");
        } else {
          refuseAtOnce(fd, peer, refusal, total);
        }
        continue;
      }
      std::lock_guard hold(c->hold);  // armed below: its first event may come at once
      c->deadline = nowMs() + limits.idleTimeoutMs;
      if (tls && !(c->ssl = tls->accept(fd))) {
        closeConnection(*c);
        continue;
      }
      watch(fd, c->id, kReadEvents, EPOLL_CTL_ADD);
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
    std::string bytes = serialize(r, false, true);
    [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    ::close(fd);
    logRefusal(peer, 503, why, total ? "connections_total" : "connections_per_address");
  }

  // Under c.hold. Other threads that still hold a pointer find it closed.
  void closeConnection(Connection& c) {
    c.closed = true;
    epoll_ctl(epoll, EPOLL_CTL_DEL, c.fd, nullptr);
    if (c.ssl) SSL_free(c.ssl);
    c.ssl = nullptr;
    ::close(c.fd);
    std::lock_guard lock(connectionsMutex);
    connections.erase(c.id);
    auto a = perAddress.find(c.peer);
    if (a != perAddress.end() && --a->second == 0) perAddress.erase(a);
  }

  void readable(const ConnectionPtr& held) {
    Connection& c = *held;
    if (c.phase == Connection::Phase::kWorking || c.phase == Connection::Phase::kWriting) {
      // Not reading now; a hang-up is noticed when the answer is written.
      return;
    }
    char buf[16384];
    size_t total = 0;
    for (;;) {
      ssize_t n = receiveSome(c, buf, sizeof buf);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        closeConnection(c);
        return;
      }
      if (n == 0) {
        // The client finished sending. A request it completed is still answered; then the
        // connection closes.
        if (c.phase == Connection::Phase::kLingering || c.peerClosed) {
          closeConnection(c);
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
    drive(held);
    if (!c.closed && c.peerClosed && c.phase == Connection::Phase::kReading)
      closeConnection(c);  // it ended without a whole request
  }

  // Takes the connection as far as it goes without waiting: parses what was received, runs
  // each complete request (pipelined ones one after another, in a loop rather than by
  // recursion, however many a client packs into one read), and writes the answers.
  void drive(const ConnectionPtr& held) {
    Connection& c = *held;
    while (!c.closed) {
      if (c.phase == Connection::Phase::kReading) {
        if (c.in.empty() || !parse(c)) return;  // more bytes to wait for
        if (c.phase == Connection::Phase::kReading && !dispatch(held)) return;  // queued
      } else if (c.phase == Connection::Phase::kWriting) {
        if (!writable(c)) return;  // waits for room, or closed, or lingering
      } else {
        return;
      }
    }
  }

  // Feeds the parser. True when a request is complete (phase still kReading) or the parser
  // refused it (an answer is being written); false when more bytes are needed.
  bool parse(Connection& c) {
    const int64_t now = nowMs();
    while (!c.in.empty()) {
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
        answer(c, serialize(r, false, true), true);
        return true;
      }
      if (state == RequestParser::State::kDone) return true;
      if (c.parser.headComplete() && c.parser.expectsContinue() && !c.continueSent) {
        static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] auto n = sendSome(c, kContinue.data(), kContinue.size());
        c.continueSent = true;
      }
      if (used == 0) break;
    }
    return false;
  }

  // A complete request: refused here, run on this thread, or queued for a free slot (false).
  bool dispatch(const ConnectionPtr& held) {
    Connection& c = *held;
    HttpRequestData& request = c.parser.request();
    const bool keepAlive = c.parser.keepAlive();
    const bool head = request.method == "HEAD";
    c.lingerAfterWrite = request.bodyTooLarge;
    request.peer = clientOf(c, request);
    // Per client address: a flood is answered 429 here, without taking a slot.
    auto wait =
        router.localCall(request) ? std::nullopt : addressLimiter.take(request.peer, nowMs());
    if (wait) {
      HttpResult r = frontEndError(Code::kResourceExhausted, 429,
                                   "rate limit: client address " + request.peer + " may send " +
                                       std::to_string(limits.rateLimit.perIpPerSecond) +
                                       " requests a second (limits.rateLimit.perIpPerSecond)");
      for (auto& [name, value] : r.headers)  // the bucket's own wait, not errorResult's second
        if (name == "Retry-After") value = std::to_string((*wait + 999) / 1000);
      router.addCors(r);
      logRefusal(request.peer, 429, "per-address rate limit", "rate_limit_address");
      answer(c, serialize(r, head, !keepAlive), !keepAlive);
      return true;
    }
    enum { kHere, kQueued, kFull } where;
    {
      std::lock_guard lock(queueMutex);
      // Behind those already waiting, if any: the first free slot is theirs.
      if (running < slots && jobs.empty()) {
        ++running;
        where = kHere;
      } else if (jobs.size() < limits.maxQueuedRequests) {
        jobs.push_back(Job{held, std::move(request), keepAlive});
        where = kQueued;
      } else {
        where = kFull;
      }
    }
    if (where == kHere) {
      runRequest(held, request, keepAlive);  // the parser keeps it until the answer is written
      releaseSlot();
      return true;
    }
    if (where == kQueued) {
      // The thread that takes the job waits for c.hold, which this thread holds until it is
      // done with the connection.
      c.phase = Connection::Phase::kWorking;
      c.deadline = 0;  // the handler's time is the handler's
      return false;
    }
    HttpResult r = frontEndError(Code::kUnavailable, 503,
                                 "the server is busy: " + std::to_string(limits.maxQueuedRequests) +
                                     " requests are waiting for a handler slot; try again shortly");
    router.addCors(r);
    logRefusal(c.peer, 503, "request queue full", "queue_full");
    answer(c, serialize(r, head, !keepAlive), !keepAlive);
    return true;
  }

  // The client, which is the connection's peer unless that is a trusted reverse proxy.
  std::string clientOf(const Connection& c, const HttpRequestData& request) const {
    if (limits.trustedProxies.empty()) return c.peer;
    auto forwarded = request.headers.find("x-forwarded-for");
    return clientAddress(c.peer,
                         forwarded == request.headers.end() ? std::string() : forwarded->second,
                         limits.trustedProxies);
  }

  void releaseSlot() {
    std::lock_guard lock(queueMutex);
    --running;
  }

  // Queued requests, taken while a slot is free, each under its connection's hold. Called by a
  // thread that holds no connection, so that two threads never wait for each other's.
  // Whether it ran any.
  bool runQueued(CpuGate::Seat& seat) {
    for (bool ran = false;; ran = true) {
      Job job;
      {
        std::lock_guard lock(queueMutex);
        if (jobs.empty() || running >= slots) return ran;
        job = std::move(jobs.front());
        jobs.pop_front();
        ++running;
      }
      // Each job is its own work, so a long queue is not one stuck event; its commit, which
      // this thread may lead from postAwaiting (holding no connection), is part of it.
      CpuGate::Work work(seat);
      Connection& c = *job.connection;
      {
        std::lock_guard hold(c.hold);
        if (!c.closed) {
          runRequest(job.connection, job.request, job.keepAlive);
          drive(job.connection);
          rearm(c);
        }
      }
      releaseSlot();
      postAwaiting();
    }
  }

  // The handler, its answer, the request's count and log line. An answer that waits for a
  // commit leaves the connection working, for postAwaiting().
  void runRequest(const ConnectionPtr& held, const HttpRequestData& request, bool keepAlive) {
    RequestSummary summary{request.peer,        request.method, request.path,
                           request.body.size(), keepAlive,      std::chrono::steady_clock::now()};
    std::optional<Handled> handled;
    {
      egress::RequestScope outbound;  // its calls count against limits.egress.maxConcurrent
      handled.emplace(router.start(request));
    }
    if (handled->pending) {
      held->phase = Connection::Phase::kWorking;
      held->deadline = 0;  // the commit's time is the store's
      held->awaiting = Awaiting{std::move(*handled->pending), std::move(summary)};
      toPost.push_back(held);
      return;
    }
    respond(*held, summary, handled->result);
  }

  // Posts this thread's waiting answers' writes, now that it holds no connection: the thread
  // that ends their batch answers them (this one, when it leads the batch itself), and it may
  // take any connection's hold to do so.
  void postAwaiting() {
    while (!toPost.empty()) {
      ConnectionPtr held = std::move(toPost.back());
      toPost.pop_back();
      std::function<void(Db&)> write = std::move(held->awaiting->pending.write);
      {
        std::lock_guard lock(awaitingMutex);
        ++awaitingCommits;
      }
      try {
        gateway.database().transactionThen(
            std::move(write),
            [this, held](std::exception_ptr failure) { answerFromCommit(held, failure); });
      } catch (...) {  // thrown only before the write was queued (GroupCommit::post)
        answerFromCommit(held, std::current_exception());
      }
    }
  }

  // The answer of a request whose write's batch ended, written from the thread that ended it.
  void answerFromCommit(const ConnectionPtr& held, std::exception_ptr failure) {
    Connection& c = *held;
    {
      std::lock_guard hold(c.hold);
      try {
        Awaiting awaiting = std::move(*c.awaiting);
        c.awaiting.reset();
        HttpResult result = awaiting.pending.answer(failure);
        if (!c.closed) {
          respond(c, awaiting.request, result);
          // A request pipelined behind it is driven by a thread of the loop, not this one,
          // which may be in the middle of leading batches: the socket, writable, reports it at
          // once.
          if (writable(c) && !c.in.empty())
            watch(c.fd, c.id, kWriteEvents, EPOLL_CTL_MOD);
          else
            rearm(c);
        }
      } catch (...) {
        // Nothing sensible left to tell the client (no memory for an answer, say): closed, so
        // that it is not left waiting, armed for nothing, for ever.
        if (!c.closed) closeConnection(c);
      }
    }
    std::lock_guard lock(awaitingMutex);  // notified under it: stop() may return right after
    if (--awaitingCommits == 0) awaitingDone.notify_all();
  }

  // The answer serialized and started, counted and logged.
  void respond(Connection& c, const RequestSummary& request, const HttpResult& result) {
    std::string bytes = serialize(result, request.method == "HEAD", !request.keepAlive);
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - request.started)
                      .count();
    // Refused credentials are what a flood produces: logged at most once a second. The request
    // line is escaped only when it is printed. Counted and logged before the client can have
    // its answer (and send its next request).
    static Poco::Logger& requests = Poco::Logger::get("signet.http");
    countRequest(result, micros);
    if (result.status == 401 || result.status == 429)
      logRefusal(request.peer, result.status, request.method + " " + request.path,
                 result.status == 401 ? "unauthenticated" : "rate_limit_organization");
    else if (requests.information())
      requests.information(requestLogLine(request, result, micros));
    answer(c, std::move(bytes), !request.keepAlive);
  }

  // The answer goes out as far as the socket takes it; drive() or the next event writes the
  // rest.
  void answer(Connection& c, std::string bytes, bool close) {
    c.out = std::move(bytes);
    c.written = 0;
    c.closeAfterWrite = close;
    c.phase = Connection::Phase::kWriting;
    c.deadline = nowMs() + kWriteTimeoutMs;
  }

  // Writes what is left of the answer. True when it is all written and the connection reads
  // its next request; false when it waits for room, or was closed, or lingers.
  bool writable(Connection& c) {
    if (c.phase != Connection::Phase::kWriting) return false;
    while (c.written < c.out.size()) {
      ssize_t n = sendSome(c, c.out.data() + c.written, c.out.size() - c.written);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;  // rearm() waits
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closeConnection(c);
        return false;
      }
      c.written += static_cast<size_t>(n);
    }
    c.out.clear();
    const int64_t now = nowMs();
    if (c.peerClosed) {
      closeConnection(c);
      return false;
    }
    if (c.closeAfterWrite) {
      if (!c.lingerAfterWrite) {
        closeConnection(c);
        return false;
      }
      // The client may still be sending the body we refused; read and drop it for a moment
      // so that it reads our answer instead of a reset.
      if (c.ssl) SSL_shutdown(c.ssl);  // close_notify, then the socket's own end
      ::shutdown(c.fd, SHUT_WR);
      c.phase = Connection::Phase::kLingering;
      c.deadline = now + kLingerMs;
      return false;
    }
    c.parser.reset();
    c.continueSent = false;
    c.phase = Connection::Phase::kReading;
    c.deadline = now + limits.idleTimeoutMs;
    return true;  // drive() parses a pipelined request already here
  }

  // Every 100 ms, on whichever thread comes by first: connections past their deadline. One
  // another thread holds is skipped (it is busy, so not idle); its turn comes next time.
  void sweepWhenDue() {
    const int64_t now = nowMs();
    int64_t due = nextSweep.load();
    if (now < due || !nextSweep.compare_exchange_strong(due, now + 100)) return;
    std::vector<ConnectionPtr> all;
    {
      std::lock_guard lock(connectionsMutex);
      all.reserve(connections.size());
      for (auto& [id, c] : connections) all.push_back(c);
    }
    for (auto& held : all) {
      Connection& c = *held;
      std::unique_lock hold(c.hold, std::try_to_lock);
      if (!hold || c.closed || c.deadline == 0 || now < c.deadline) continue;
      if (c.phase == Connection::Phase::kReading && c.parser.started()) {
        std::string why = c.parser.headComplete()
                              ? "the request's body did not arrive within " +
                                    std::to_string(limits.headerTimeoutMs + limits.bodyTimeoutMs) +
                                    " ms"
                              : "the request's head did not arrive within " +
                                    std::to_string(limits.headerTimeoutMs) + " ms";
        logRefusal(c.peer, 408, why, "timeout");
        HttpResult r = frontEndError(Code::kInvalidArgument, 408, why);
        answer(c, serialize(r, false, true), true);
        writable(c);
        rearm(c);
      } else {
        closeConnection(c);  // idle past its time, or not reading its answer
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
  static std::string requestLogLine(const RequestSummary& request, const HttpResult& result,
                                    int64_t micros) {
    json::Object o = json::object();
    o->set("requestId", result.log.requestId);
    // The client's bytes, escaped to printable ASCII first: a line stays one readable line.
    o->set("peer", printable(request.peer));
    o->set("method", printable(request.method));
    o->set("path", printable(request.path));
    o->set("status", result.status);
    o->set("durationUs", micros);
    o->set("bytesIn", request.bytesIn);
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
};

thread_local std::vector<ConnectionPtr> HttpServer::Impl::toPost;

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
