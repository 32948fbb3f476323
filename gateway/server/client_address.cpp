#include "server/client_address.hpp"

#include <charconv>

namespace signet {

namespace {

// An IPv4-mapped IPv6 address as the IPv4 address it carries; any other as it is.
egress::Address unmapped(const egress::Address& a) {
  if (a.v4) return a;
  for (int i = 0; i < 10; ++i)
    if (a.bytes[i] != 0) return a;
  if (a.bytes[10] != 0xff || a.bytes[11] != 0xff) return a;
  egress::Address v4;
  v4.v4 = true;
  for (int i = 0; i < 4; ++i) v4.bytes[i] = a.bytes[12 + i];
  return v4;
}

bool inAny(const egress::Address& a, const std::vector<Cidr>& ranges) {
  for (const auto& r : ranges)
    if (r.contains(a)) return true;
  return false;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool Cidr::contains(const egress::Address& address) const {
  egress::Address a = unmapped(address);
  if (a.v4 != network.v4) return false;
  for (int bit = 0; bit < prefix; ++bit) {
    int mask = 0x80 >> (bit % 8);
    if ((a.bytes[bit / 8] & mask) != (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

std::optional<Cidr> parseCidr(std::string_view text) {
  size_t slash = text.find('/');
  auto address = egress::parseAddress(text.substr(0, slash));
  if (!address || text.substr(0, slash).find('[') != std::string_view::npos) return std::nullopt;
  // The prefix counts bits of the address as written: ::ffff:10.0.0.0/104 is 10.0.0.0/8.
  const int written = address->v4 ? 32 : 128;
  int prefix = written;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || digits.size() > 3 || error != std::errc() ||
        end != digits.data() + digits.size() || prefix < 0 || prefix > written)
      return std::nullopt;
  }
  Cidr cidr{unmapped(*address), prefix};
  if (cidr.network.v4 && !address->v4) {  // IPv4-mapped: the 96 bits before the IPv4 address
    if (prefix < 96) return std::nullopt;
    cidr.prefix = prefix - 96;
  }
  const int bits = cidr.network.v4 ? 32 : 128;
  for (int bit = cidr.prefix; bit < bits; ++bit)
    if (cidr.network.bytes[bit / 8] & (0x80 >> (bit % 8))) return std::nullopt;
  return cidr;
}

bool isTrustedProxy(const std::string& peer, const std::vector<Cidr>& trusted) {
  auto address = egress::parseAddress(peer);
  return address && inAny(*address, trusted);
}

std::string clientAddress(const std::string& peer, std::string_view forwardedFor,
                          const std::vector<Cidr>& trusted) {
  if (forwardedFor.empty() || !isTrustedProxy(peer, trusted)) return peer;
  while (true) {
    size_t comma = forwardedFor.rfind(',');
    std::string_view entry =
        trimmed(comma == std::string_view::npos ? forwardedFor : forwardedFor.substr(comma + 1));
    auto address = egress::parseAddress(entry);
    // Not an address (a port, "unknown", garbage): who the client is cannot be known, and the
    // proxy's own address would fail open wherever the proxy's network is allowed.
    if (!address) return kUnknownClient;
    std::string client = egress::toString(unmapped(*address));
    if (!inAny(*address, trusted) || comma == std::string_view::npos) return client;
    forwardedFor = forwardedFor.substr(0, comma);
  }
}

}  // namespace signet
