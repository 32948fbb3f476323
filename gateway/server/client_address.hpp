// Who a request is from when the gateway sits behind a reverse proxy. The connection's peer is
// then the proxy; the client is in X-Forwarded-For, which anyone can write, so it is read only
// when the connection comes from one of the operator's trusted proxies (server.trustedProxies).
// Per-address rate limits, the request log and the metrics check all count that address, so
// that the limiter stops counting every client as the proxy.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "signet/egress.hpp"

namespace signet {

// An address range: an IPv4 or IPv6 network and its prefix length. An IPv4-mapped IPv6 address
// (::ffff:a.b.c.d) is in the IPv4 range that holds a.b.c.d.
struct Cidr {
  egress::Address network;  // the host bits cleared
  int prefix = 0;           // 0 to 32 (IPv4) or 128 (IPv6)
  bool contains(const egress::Address& address) const;
};

// "192.168.1.0/24", "2001:db8::/32"; a bare address is its own /32 or /128. Host bits set
// beyond the prefix are refused, since "10.1.2.3/8" is more likely a mistake than meant.
// Nullopt for anything else: an empty text, a prefix out of range, an address that is not one.
std::optional<Cidr> parseCidr(std::string_view text);

// What a request's client is when a trusted proxy's X-Forwarded-For cannot be read: no address,
// so an IP allowlist applies its onEvaluationError, the metrics check refuses, and the
// per-address limit puts every such request in one bucket.
inline constexpr const char* kUnknownClient = "unknown";

// Whether `peer` (a connection's address) is one of the `trusted` proxies.
bool isTrustedProxy(const std::string& peer, const std::vector<Cidr>& trusted);

// The client of a request that came over a connection from `peer` with `forwardedFor` (the
// X-Forwarded-For value, its lines joined in order; empty when absent). When `peer` is a
// trusted proxy, the list is read from the right, each hop added by the proxy before it: the
// first address that is not itself a trusted proxy is the client (hops to its left are what the
// client claimed, and anyone can claim anything). An entry on the way that is not an address
// makes the client kUnknownClient, never the proxy: the proxy's address would pass wherever
// its network is allowed. So list the proxies' own addresses, not networks clients share.
std::string clientAddress(const std::string& peer, std::string_view forwardedFor,
                          const std::vector<Cidr>& trusted);

}  // namespace signet
