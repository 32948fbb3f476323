// Egress: the one way the gateway and its plugins call the network (OIDC discovery and keys,
// OAuth 2.0 token and user-info endpoints, webhook receivers, on-ramp providers, SMS and SMTP
// relays, chain nodes, price sources).
//
// Three rules hold for every call:
//   1. Where it may go. The host is resolved, and every address it resolves to is classified
//      (classify below); a call goes only to an address that is public, unless the operator
//      named the destination (Rules::allowInternal: a configured node or relay, an issuer in
//      insecureIssuers, a webhook endpoint under allowInsecureUrls). The address checked is the
//      address connected to, so a name that resolves elsewhere a second later (DNS rebinding)
//      gains nothing. Redirects are not followed.
//   2. How long it may take. One deadline covers resolving, connecting, the TLS handshake, the
//      request and the whole answer, so a peer that trickles its answer cannot stretch it, and
//      a name server that never answers cannot either: names are resolved on a small pool of
//      threads of their own, and a call whose deadline passes stops waiting for its answer.
//   3. How many at once. Calls in flight are bounded per destination (host and port), and
//      calls made for API requests (inside a RequestScope) in total as well; past either bound a
//      call is refused at once as busy (Unavailable, detail EGRESS_BUSY), which the API answers
//      with 503 and Retry-After, instead of queueing requests behind a slow peer. Background
//      work (webhook deliveries, chain workers) is bounded by its own workers, so it cannot use
//      up what API requests need.
// Calls run on the egress thread, not on the caller's: exchangeAsync completes with a callback,
// and exchange waits for it (a request thread waiting so is one of the bounded few).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "signet/error.hpp"

namespace signet::egress {

// ---- Addresses ----

// An IPv4 (the first four bytes) or IPv6 address.
struct Address {
  std::array<uint8_t, 16> bytes{};
  bool v4 = false;
  bool operator==(const Address&) const = default;
};

// A literal address: dotted-quad IPv4, or IPv6 with or without brackets (a zone id is refused).
// No name is resolved, and forms inet_pton refuses (127.1, 0x7f.0.0.1) are nullopt: those reach
// the network only through resolve(), which checks what they resolve to.
std::optional<Address> parseAddress(std::string_view text);
std::string toString(const Address& address);
// A URL's host as connecting needs it: an IPv6 literal without its brackets.
std::string hostOf(std::string host);
// What a per-client limit counts for a client at `peer` (an address as the connection came
// from it): an IPv4 address itself (an IPv4-mapped one as IPv4), an IPv6 address's /64, since
// one subscriber usually holds a whole /64 and could otherwise spread a flood over it. Text
// that is not an address is returned as it is.
std::string clientNetwork(const std::string& peer);

// What an address is for. Only kPublic may be reached without the operator naming the
// destination. IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d,
// IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are classified by the IPv4
// address they carry.
enum class Range {
  kPublic,
  kUnspecified,      // 0.0.0.0/8, ::
  kLoopback,         // 127.0.0.0/8, ::1
  kPrivate,          // 10/8, 172.16/12, 192.168/16
  kSharedCgnat,      // 100.64/10 (RFC 6598)
  kLinkLocal,        // 169.254/16 (cloud metadata among them), fe80::/10
  kMulticast,        // 224/4, ff00::/8
  kBroadcast,        // 255.255.255.255
  kReserved,         // 240/4, 192.0.0/24, 192.88.99/24, and IPv6 outside 2000::/3
  kDocumentation,    // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
  kBenchmarking,     // 198.18/15, 2001:2::/48
  kUniqueLocal,      // fc00::/7
  kSiteLocal,        // fec0::/10 (deprecated, still routed inside some networks)
  kLocalTranslator,  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): what it reaches is local
  kTunnel,           // 2001::/32 Teredo, 2001:10::/28 ORCHID: addresses that hide their host
};
Range classify(const Address& address);
const char* describe(Range range);  // "loopback", "private", ...

// ---- Calls ----

using Clock = std::chrono::steady_clock;

// How one call may go.
// (Every member has an initializer, so that designated initializers may leave any out.)
struct Rules {
  std::string peer = {};  // who is called, for messages and logs: "OIDC issuer https://…"
  Clock::time_point deadline = {};  // for the whole exchange; unset: 10 s from the call
  bool allowHttp = false;           // plain http:// (the operator's choice); https:// always may
  bool allowInternal = false;       // the operator named this destination: any address may be used
  std::string caFile = {};  // an extra CA for the peer's certificate; the system store always
  size_t maxAnswerBytes = 1 << 20;
};

struct Request {
  std::string method = "GET";
  std::string url = {};
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::string contentType = {};
  std::string body = {};
};

struct Answer {
  int status = 0;
  std::string body;
  std::string cacheControl;
};

// Detail codes of the errors below (Error::detailCode), so that callers can tell them apart
// without reading messages.
inline constexpr const char* kRefused = "EGRESS_REFUSED";  // the rules forbid the destination
inline constexpr const char* kBusy = "EGRESS_BUSY";        // the bounds are full; try again
inline constexpr const char* kFailed = "EGRESS_FAILED";    // the peer could not be reached in time

// One HTTP/1.1 exchange. Throws Error(kUnavailable) with one of the detail codes above, and a
// message naming `rules.peer`, the URL and the cause.
Answer exchange(const Request& request, const Rules& rules);
// The same, completing on the egress thread with the answer or the error.
using Completion = std::function<void(std::variant<Answer, Error>)>;
void exchangeAsync(Request request, Rules rules, Completion done);

// ---- For protocols the gateway speaks through another library (SMTP through Poco) ----

// A slot for a call to `host:port`; released when destroyed. Throws busy when the bounds are
// full.
class Permit {
 public:
  Permit(Permit&&) noexcept;
  Permit& operator=(Permit&&) = delete;
  ~Permit();

 private:
  friend Permit admit(const std::string&, uint16_t, const std::string&);
  Permit(std::string destination, bool forRequest);
  std::string destination_;
  bool forRequest_;
};
Permit admit(const std::string& host, uint16_t port, const std::string& peer);

// The addresses `host` resolves to that the rules allow, in resolver order, by the deadline.
// Throws kRefused when it resolves to an address the rules forbid, kFailed when it does not
// resolve in time, kBusy when too many names are being resolved.
std::vector<Address> resolve(const std::string& host, uint16_t port, const Rules& rules);

// Calls `expire` on the egress thread at `deadline` unless the returned guard is destroyed
// first: a blocking client's socket is shut down there, which ends any read or write it waits in.
class DeadlineGuard {
 public:
  DeadlineGuard(Clock::time_point deadline, std::function<void()> expire);
  ~DeadlineGuard();
  DeadlineGuard(const DeadlineGuard&) = delete;
  DeadlineGuard& operator=(const DeadlineGuard&) = delete;
  bool expired() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// ---- Bounds ----

struct Limits {
  int maxConcurrent = 8;      // calls in flight for API requests, in the whole process
  int maxPerDestination = 4;  // to one host and port
};
// Set by the gateway at start-up (limits.egress); the defaults otherwise.
void configure(const Limits& limits);
Limits limits();
// Calls in flight now, in total (GET /metrics: signet_egress_calls_in_flight).
int inFlight();

// Marks the calls the current thread makes, while it lives, as made for an API request: they
// count against Limits::maxConcurrent. The HTTP front end holds one around each request.
class RequestScope {
 public:
  RequestScope();
  ~RequestScope();
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;
  static bool active();

 private:
  bool outer_;
};

}  // namespace signet::egress
