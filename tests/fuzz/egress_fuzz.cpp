// Fuzz target: the egress policy's address parser and filter (signet/egress.hpp). The first byte
// picks what the rest is: text to parse as an address literal, or four raw bytes of an IPv4
// address. Besides not crashing, the filter must agree with itself:
//   - a parsed address printed and parsed again is the same address, in the same range;
//   - an IPv4 address is in the same range as every IPv6 form that carries it (IPv4-mapped,
//     IPv4-compatible, NAT64's well-known prefix, 6to4), so that no form reaches what the plain
//     one may not.
#include <cstring>
#include <string>

#include "signet/egress.hpp"

using signet::egress::Address;
using signet::egress::classify;

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

Address v6With(std::initializer_list<uint8_t> prefix, const uint8_t* v4, size_t at) {
  Address a;
  std::copy(prefix.begin(), prefix.end(), a.bytes.begin());
  std::memcpy(a.bytes.data() + at, v4, 4);
  return a;
}

void checkText(const std::string& text) {
  auto a = signet::egress::parseAddress(text);
  if (!a) return;
  auto again = signet::egress::parseAddress(signet::egress::toString(*a));
  require(again && *again == *a && classify(*again) == classify(*a));
}

void checkCarriedForms(const uint8_t* v4) {
  Address plain;
  plain.v4 = true;
  std::memcpy(plain.bytes.data(), v4, 4);
  auto range = classify(plain);
  require(classify(v6With({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, v4, 12)) == range);
  require(classify(v6With({0x00, 0x64, 0xff, 0x9b}, v4, 12)) == range);
  require(classify(v6With({0x20, 0x02}, v4, 2)) == range);
  // ::a.b.c.d, except :: and ::1, which are IPv6's own unspecified and loopback addresses.
  auto compatible = classify(v6With({}, v4, 12));
  bool special = v4[0] == 0 && v4[1] == 0 && v4[2] == 0 && v4[3] <= 1;
  require(special || compatible == range);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    checkText(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  } else if (size >= 5) {
    checkCarriedForms(data + 1);
  }
  return 0;
}
