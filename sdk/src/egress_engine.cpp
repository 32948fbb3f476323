#include "egress_engine.hpp"

#include <Poco/Logger.h>
#include <netdb.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace signet::egress::detail {

std::string destinationOf(const std::string& host, uint16_t port) {
  std::string lower = host;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return (lower.find(':') != std::string::npos ? "[" + lower + "]" : lower) + ":" +
         std::to_string(port);
}

Error failure(const char* detail, const std::string& message) {
  return Error(Code::kUnavailable, message, detail);
}

// ---- ResolverPool ----

ResolverPool::ResolverPool() {
  for (int i = 0; i < kThreads; ++i) {
    threads_.emplace_back([this] { run(); });
    threads_.back().detach();  // never joined: the pool lives as long as the process
  }
}

bool ResolverPool::resolve(std::string host, uint16_t port, Done done) {
  std::lock_guard lock(mutex_);
  if (queue_.size() >= kMaxQueued) return false;
  queue_.push_back({std::move(host), port, std::move(done)});
  ready_.notify_one();
  return true;
}

void ResolverPool::run() {
  for (;;) {
    Query q;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return !queue_.empty(); });
      q = std::move(queue_.front());
      queue_.pop_front();
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    addrinfo* list = nullptr;
    int rc = ::getaddrinfo(q.host.c_str(), std::to_string(q.port).c_str(), &hints, &list);
    if (rc != 0) {
      q.done(std::string(gai_strerror(rc)));
      continue;
    }
    std::vector<tcp::endpoint> found;
    for (addrinfo* a = list; a; a = a->ai_next) {
      if (a->ai_family == AF_INET) {
        auto* in = reinterpret_cast<sockaddr_in*>(a->ai_addr);
        asio::ip::address_v4::bytes_type b;
        std::memcpy(b.data(), &in->sin_addr, 4);
        found.emplace_back(asio::ip::address_v4(b), q.port);
      } else if (a->ai_family == AF_INET6) {
        auto* in = reinterpret_cast<sockaddr_in6*>(a->ai_addr);
        asio::ip::address_v6::bytes_type b;
        std::memcpy(b.data(), &in->sin6_addr, 16);
        found.emplace_back(asio::ip::address_v6(b, in->sin6_scope_id), q.port);
      }
    }
    ::freeaddrinfo(list);
    q.done(std::move(found));
  }
}

// ---- Engine ----

Engine& Engine::get() {
  static Engine* engine = new Engine;  // never destroyed: calls may be in flight at exit
  return *engine;
}

Engine::Engine() : work_(asio::make_work_guard(io_)), thread_([this] { run(); }) {}

void Engine::run() {
  // A handler that throws must not take the process with it, nor stop the thread every call
  // needs: the calls are written not to throw, and this is the net beneath them.
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception& e) {
      Poco::Logger::get("signet.egress").error("egress thread: %s", std::string(e.what()));
    } catch (...) {
      Poco::Logger::get("signet.egress").error("egress thread: an exception of unknown type");
    }
  }
}

void Engine::configure(const Limits& l) {
  std::lock_guard lock(mutex_);
  limits_.maxConcurrent = std::max(1, l.maxConcurrent);
  limits_.maxPerDestination = std::max(1, l.maxPerDestination);
}

Limits Engine::limits() {
  std::lock_guard lock(mutex_);
  return limits_;
}

int Engine::inFlight() {
  std::lock_guard lock(mutex_);
  return total_;
}

std::optional<std::string> Engine::acquire(const std::string& destination, bool forRequest) {
  std::lock_guard lock(mutex_);
  auto it = perDestination_.find(destination);
  int mine = it == perDestination_.end() ? 0 : it->second;
  bool requestsFull = forRequest && forRequests_ >= limits_.maxConcurrent;
  if (requestsFull)
    return std::to_string(forRequests_) +
           " outbound calls for API requests are in flight, the limit "
           "(limits.egress.maxConcurrent)";
  if (mine >= limits_.maxPerDestination)
    return std::to_string(mine) + " calls to " + destination +
           " are in flight, the limit (limits.egress.maxPerDestination)";
  ++perDestination_[destination];
  ++total_;
  if (forRequest) ++forRequests_;
  return std::nullopt;
}

void Engine::release(const std::string& destination, bool forRequest) {
  std::lock_guard lock(mutex_);
  auto it = perDestination_.find(destination);
  if (it != perDestination_.end() && --it->second <= 0) perDestination_.erase(it);
  --total_;
  if (forRequest) --forRequests_;
}

std::shared_ptr<asio::ssl::context> Engine::tlsContext(const std::string& caFile) {
  std::lock_guard lock(mutex_);
  auto& slot = tls_[caFile];
  if (!slot) {
    // The system CA store, and a given CA beside it; TLS 1.2 or newer with OpenSSL's client
    // suites (a peer that offers only what our listeners refuse is still a peer we may call).
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    ctx->set_default_verify_paths();
    if (!caFile.empty()) ctx->load_verify_file(caFile);
    ctx->set_verify_mode(asio::ssl::verify_peer);
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    slot = std::move(ctx);
  }
  return slot;
}

// ---- the address check ----

namespace {
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
}  // namespace

std::variant<std::vector<tcp::endpoint>, Error> allowed(const std::vector<tcp::endpoint>& found,
                                                        const std::string& host, const Rules& rules,
                                                        const std::string& what) {
  std::vector<tcp::endpoint> out;
  for (const auto& endpoint : found) {
    Address a = addressOf(endpoint.address());
    Range range = classify(a);
    // A name with one internal address among public ones could be steered to it by whoever
    // controls its records: all of them must be allowed.
    if (!rules.allowInternal && range != Range::kPublic)
      return failure(kRefused, what + ": " + host + " resolves to " + toString(a) +
                                   ", which is not a public address (" + describe(range) +
                                   "); outbound calls may not reach it unless the operator "
                                   "names the destination");
    out.push_back(endpoint);
  }
  if (out.empty()) return failure(kFailed, what + ": " + host + " does not resolve");
  return out;
}

}  // namespace signet::egress::detail
