#include "url_policy.hpp"

#include <Poco/Net/DNS.h>
#include <Poco/URI.h>

#include <stdexcept>

#include "signet/encoding.hpp"
#include "signet/error.hpp"

namespace webhooks {

namespace {

bool inV4(const uint8_t* a, uint8_t b0, uint8_t b1, int prefix) {
  uint32_t addr = (uint32_t(a[0]) << 24) | (uint32_t(a[1]) << 16) | (uint32_t(a[2]) << 8) | a[3];
  uint32_t net = (uint32_t(b0) << 24) | (uint32_t(b1) << 16);
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t(0) << (32 - prefix);
  return (addr & mask) == (net & mask);
}

bool publicV4(const uint8_t* a) {
  // clang-format off
  return !(inV4(a, 0, 0, 8)       // "this" network
        || inV4(a, 10, 0, 8)      // private
        || inV4(a, 100, 64, 10)   // shared (carrier-grade NAT)
        || inV4(a, 127, 0, 8)     // loopback
        || inV4(a, 169, 254, 16)  // link-local, cloud metadata
        || inV4(a, 172, 16, 12)   // private
        || inV4(a, 192, 0, 24)    // IETF protocol assignments
        || inV4(a, 192, 168, 16)  // private
        || inV4(a, 198, 18, 15)   // benchmarking
        || inV4(a, 224, 0, 4)     // multicast
        || inV4(a, 240, 0, 4));   // reserved, broadcast
  // clang-format on
}

std::string hostOf(const Poco::URI& uri) {
  std::string host = uri.getHost();
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}

}  // namespace

bool isPublicAddress(const Poco::Net::IPAddress& address) {
  const auto* bytes = static_cast<const uint8_t*>(address.addr());
  if (address.family() == Poco::Net::IPAddress::IPv4) return publicV4(bytes);
  // IPv6: mapped and NAT64 addresses carry an IPv4 address, which decides.
  bool mapped = std::all_of(bytes, bytes + 10, [](uint8_t b) { return b == 0; }) &&
                bytes[10] == 0xff && bytes[11] == 0xff;
  bool nat64 = bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xff && bytes[3] == 0x9b &&
               std::all_of(bytes + 4, bytes + 12, [](uint8_t b) { return b == 0; });
  if (mapped || nat64) return publicV4(bytes + 12);
  if (std::all_of(bytes, bytes + 15, [](uint8_t b) { return b == 0; })) return false;  // :: and ::1
  if ((bytes[0] & 0xfe) == 0xfc) return false;                      // unique local
  if (bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80) return false;  // link-local
  if (bytes[0] == 0xff) return false;                               // multicast
  return true;
}

std::string checkUrl(const std::string& url, const std::string& field, bool allowInsecure) {
  auto refuse = [&](const std::string& why) {
    return signet::invalidArgument("invalid field " + field + ": \"" + url + "\" " + why);
  };
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const std::exception&) {
    throw refuse("is not a URL");
  }
  if (uri.getScheme() != "https" && !(allowInsecure && uri.getScheme() == "http"))
    throw refuse("is not an https:// URL");
  if (!uri.getUserInfo().empty()) throw refuse("carries user-info, which is not allowed");
  if (uri.getHost().empty()) throw refuse("names no host");
  if (!uri.getFragment().empty()) throw refuse("has a fragment");
  if (url.size() > 2048) throw refuse("is longer than 2048 characters");
  if (!allowInsecure) {
    try {
      resolveTarget(url, false);
    } catch (const std::runtime_error& e) {
      throw refuse(e.what());
    }
  }
  return url;
}

Target resolveTarget(const std::string& url, bool allowInsecure) {
  Poco::URI uri(url);
  Target t;
  t.https = uri.getScheme() == "https";
  t.host = hostOf(uri);
  t.port = uri.getPort();
  t.pathAndQuery = uri.getPathEtc();
  if (t.pathAndQuery.empty()) t.pathAndQuery = "/";
  std::vector<Poco::Net::IPAddress> addresses;
  Poco::Net::IPAddress literal;
  if (Poco::Net::IPAddress::tryParse(t.host, literal)) {
    addresses.push_back(literal);
  } else {
    std::string lower = signet::asciiLower(t.host);
    if (!allowInsecure && (lower == "localhost" || lower.ends_with(".localhost") ||
                           lower == "metadata.google.internal" || lower == "metadata"))
      throw std::runtime_error("names a local or metadata host");
    try {
      addresses = Poco::Net::DNS::hostByName(t.host).addresses();
    } catch (const std::exception&) {
      throw std::runtime_error("does not resolve to an address");
    }
  }
  if (addresses.empty()) throw std::runtime_error("does not resolve to an address");
  if (allowInsecure) {
    t.address = addresses.front();
    return t;
  }
  // Every address must be public: a name with one private address among public ones could be
  // steered to it.
  for (const auto& a : addresses)
    if (!isPublicAddress(a))
      throw std::runtime_error("resolves to " + a.toString() +
                               ", which is not a public address (loopback, private, link-local, "
                               "metadata and reserved addresses are refused)");
  t.address = addresses.front();
  return t;
}

}  // namespace webhooks
