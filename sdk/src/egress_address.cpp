// The address half of the egress policy: parsing literals and classifying addresses.
// Ranges follow the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates), plus what IPv6 can carry of an IPv4 address: RFC 4291 §2.5.5 (IPv4-compatible and
// -mapped), RFC 6052 (NAT64 64:ff9b::/96), RFC 8215 (local-use NAT64) and RFC 3056 (6to4).
#include <arpa/inet.h>

#include <algorithm>

#include "signet/egress.hpp"

namespace signet::egress {

namespace {

bool inV4(const uint8_t* a, uint32_t network, int prefix) {
  uint32_t addr = (uint32_t(a[0]) << 24) | (uint32_t(a[1]) << 16) | (uint32_t(a[2]) << 8) | a[3];
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t(0) << (32 - prefix);
  return (addr & mask) == (network & mask);
}

constexpr uint32_t v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return (uint32_t(a) << 24) | (uint32_t(b) << 16) | (uint32_t(c) << 8) | d;
}

Range classifyV4(const uint8_t* a) {
  struct Row {
    uint32_t network;
    int prefix;
    Range range;
  };
  // clang-format off
  static constexpr Row kTable[] = {
      {v4(255, 255, 255, 255), 32, Range::kBroadcast},
      {v4(0, 0, 0, 0),          8, Range::kUnspecified},   // "this network"
      {v4(10, 0, 0, 0),         8, Range::kPrivate},
      {v4(100, 64, 0, 0),      10, Range::kSharedCgnat},
      {v4(127, 0, 0, 0),        8, Range::kLoopback},
      {v4(169, 254, 0, 0),     16, Range::kLinkLocal},
      {v4(172, 16, 0, 0),      12, Range::kPrivate},
      {v4(192, 0, 0, 0),       24, Range::kReserved},      // IETF protocol assignments
      {v4(192, 0, 2, 0),       24, Range::kDocumentation},
      {v4(192, 88, 99, 0),     24, Range::kReserved},      // the old 6to4 relay anycast
      {v4(192, 168, 0, 0),     16, Range::kPrivate},
      {v4(198, 18, 0, 0),      15, Range::kBenchmarking},
      {v4(198, 51, 100, 0),    24, Range::kDocumentation},
      {v4(203, 0, 113, 0),     24, Range::kDocumentation},
      {v4(224, 0, 0, 0),        4, Range::kMulticast},
      {v4(240, 0, 0, 0),        4, Range::kReserved},
  };
  // clang-format on
  for (const auto& row : kTable)
    if (inV4(a, row.network, row.prefix)) return row.range;
  return Range::kPublic;
}

bool zero(const uint8_t* from, const uint8_t* to) {
  return std::all_of(from, to, [](uint8_t b) { return b == 0; });
}

bool startsWith(const std::array<uint8_t, 16>& b, std::initializer_list<uint8_t> prefix) {
  return std::equal(prefix.begin(), prefix.end(), b.begin());
}

Range classifyV6(const std::array<uint8_t, 16>& b) {
  const uint8_t* p = b.data();
  // ::/96 holds ::, ::1 and the IPv4-compatible forms; ::ffff:0:0/96 the IPv4-mapped ones.
  if (zero(p, p + 10)) {
    bool mapped = b[10] == 0xff && b[11] == 0xff;
    bool compatible = b[10] == 0 && b[11] == 0;
    if (compatible && zero(p + 12, p + 15))
      return b[15] == 1 ? Range::kLoopback : Range::kUnspecified;
    if (mapped || compatible) return classifyV4(p + 12);
    return Range::kReserved;
  }
  if (startsWith(b, {0x00, 0x64, 0xff, 0x9b}) && zero(p + 4, p + 12)) return classifyV4(p + 12);
  if (startsWith(b, {0x00, 0x64, 0xff, 0x9b, 0x00, 0x01})) return Range::kLocalTranslator;
  if (b[0] == 0xff) return Range::kMulticast;
  if ((b[0] & 0xfe) == 0xfc) return Range::kUniqueLocal;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return Range::kLinkLocal;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return Range::kSiteLocal;
  if (startsWith(b, {0x20, 0x02})) return classifyV4(p + 2);  // 6to4 carries its IPv4 host
  if (startsWith(b, {0x20, 0x01, 0x0d, 0xb8})) return Range::kDocumentation;
  if (startsWith(b, {0x3f, 0xff}) && (b[2] & 0xf0) == 0) return Range::kDocumentation;
  if (startsWith(b, {0x20, 0x01, 0x00, 0x02, 0x00, 0x00})) return Range::kBenchmarking;
  if (startsWith(b, {0x20, 0x01, 0x00, 0x00})) return Range::kTunnel;  // Teredo
  if (startsWith(b, {0x20, 0x01, 0x00}) && b[3] >= 0x10 && b[3] <= 0x2f)
    return Range::kTunnel;  // ORCHID and ORCHIDv2, 2001:10::/28 and 2001:20::/28
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if ((b[0] & 0xe0) != 0x20) return Range::kReserved;
  return Range::kPublic;
}

}  // namespace

std::optional<Address> parseAddress(std::string_view text) {
  if (text.size() > 2 && text.front() == '[' && text.back() == ']')  // as a URL writes it
    text = text.substr(1, text.size() - 2);
  if (text.empty() || text.size() > 45) return std::nullopt;
  std::string s(text);
  Address a;
  if (s.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
    a.v4 = true;
    return a;
  }
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) != 1) return std::nullopt;
  return a;
}

std::string toString(const Address& a) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.v4 ? AF_INET : AF_INET6, a.bytes.data(), text, sizeof text);
  return text;
}

Range classify(const Address& a) {
  return a.v4 ? classifyV4(a.bytes.data()) : classifyV6(a.bytes);
}

const char* describe(Range range) {
  switch (range) {
    case Range::kPublic:
      return "public";
    case Range::kUnspecified:
      return "unspecified";
    case Range::kLoopback:
      return "loopback";
    case Range::kPrivate:
      return "private";
    case Range::kSharedCgnat:
      return "shared (carrier-grade NAT)";
    case Range::kLinkLocal:
      return "link-local";
    case Range::kMulticast:
      return "multicast";
    case Range::kBroadcast:
      return "broadcast";
    case Range::kReserved:
      return "reserved";
    case Range::kDocumentation:
      return "documentation";
    case Range::kBenchmarking:
      return "benchmarking";
    case Range::kUniqueLocal:
      return "unique local";
    case Range::kSiteLocal:
      return "site-local";
    case Range::kLocalTranslator:
      return "local-use NAT64";
    case Range::kTunnel:
      return "tunnel (Teredo or ORCHID)";
  }
  return "unknown";
}

std::string clientNetwork(const std::string& peer) {
  auto a = parseAddress(peer);
  if (!a) return peer;
  if (a->v4) return toString(*a);
  const auto& b = a->bytes;
  bool mapped = std::all_of(b.begin(), b.begin() + 10, [](uint8_t x) { return x == 0; }) &&
                b[10] == 0xff && b[11] == 0xff;
  if (mapped) {
    Address v4;
    v4.v4 = true;
    std::copy(b.begin() + 12, b.end(), v4.bytes.begin());
    return toString(v4);
  }
  Address net = *a;
  std::fill(net.bytes.begin() + 8, net.bytes.end(), 0);
  return toString(net) + "/64";
}

}  // namespace signet::egress
