#include "quantity.hpp"

#include <algorithm>

namespace signing::broadcast {

using signet::toHex;

namespace {
int digitValue(char c, int base) {
  int v = c >= '0' && c <= '9'   ? c - '0'
          : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                 : 99;
  return v < base ? v : -1;
}

// Big-endian multiply-add on a 32-byte number; false on overflow.
bool mulAdd(Bytes& n, int base, int digit) {
  int carry = digit;
  for (size_t i = n.size(); i-- > 0;) {
    int v = n[i] * base + carry;
    n[i] = static_cast<uint8_t>(v & 0xff);
    carry = v >> 8;
  }
  return carry == 0;
}
}  // namespace

std::optional<Bytes> parseU256(const std::string& text) {
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  std::string digits = hex ? text.substr(2) : text;
  if (digits.empty() || digits.size() > 80) return std::nullopt;
  Bytes n(32, 0);
  for (char c : digits) {
    int d = digitValue(c, hex ? 16 : 10);
    if (d < 0 || !mulAdd(n, hex ? 16 : 10, d)) return std::nullopt;
  }
  return n;
}

Bytes minimalBytes(const Bytes& be) {
  auto first = std::find_if(be.begin(), be.end(), [](uint8_t b) { return b != 0; });
  return Bytes(first, be.end());
}

Bytes minimalBytes(Uint128 v) {
  Bytes out;
  for (; v != 0; v >>= 8) out.insert(out.begin(), static_cast<uint8_t>(v & 0xff));
  return out;
}

std::optional<Uint128> parseU128(const std::string& text) {
  auto n = parseU256(text);
  if (!n || std::any_of(n->begin(), n->begin() + 16, [](uint8_t b) { return b != 0; }))
    return std::nullopt;
  Uint128 v = 0;
  for (size_t i = 16; i < 32; ++i) v = v << 8 | (*n)[i];
  return v;
}

std::string toDecimal(Uint128 v) {
  if (v == 0) return "0";
  std::string out;
  for (; v != 0; v /= 10)
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return out;
}

std::string toQuantity(Uint128 v) {
  return toQuantity(minimalBytes(v));
}

std::string toQuantity(const Bytes& be) {
  std::string hex = toHex(minimalBytes(be));
  size_t start = hex.find_first_not_of('0');
  return "0x" + (start == std::string::npos ? std::string("0") : hex.substr(start));
}

std::optional<Uint128> parseFixed(const std::string& text, int scale) {
  size_t dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || whole.size() > 20 || static_cast<int>(fraction.size()) > scale ||
      (dot != std::string::npos && fraction.empty()))
    return std::nullopt;
  Uint128 v = 0;
  for (char c : whole + fraction + std::string(scale - fraction.size(), '0')) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return v;
}

std::string toDecimal(const Bytes& bigEndian) {
  // Long division by ten over the bytes, a digit a round: at most 78 rounds for 256 bits.
  Bytes n = minimalBytes(bigEndian);
  std::string out;
  while (!n.empty()) {
    int remainder = 0;
    for (auto& byte : n) {
      int v = remainder * 256 + byte;
      byte = static_cast<uint8_t>(v / 10);
      remainder = v % 10;
    }
    out.insert(out.begin(), static_cast<char>('0' + remainder));
    n = minimalBytes(n);
  }
  return out.empty() ? "0" : out;
}

std::string fixedToDecimal(Uint128 units, int scale) {
  return pointed(toDecimal(units), scale);
}

std::string pointed(std::string digits, int scale) {
  if (static_cast<int>(digits.size()) <= scale)
    digits = std::string(scale + 1 - digits.size(), '0') + digits;
  std::string whole = digits.substr(0, digits.size() - scale);
  std::string fraction = digits.substr(digits.size() - scale);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return fraction.empty() ? whole : whole + "." + fraction;
}

}  // namespace signing::broadcast
