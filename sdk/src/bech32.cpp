#include "signet/bech32.hpp"

#include <vector>

namespace signet::bech32 {

namespace {
constexpr char kCharset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

uint32_t polymod(const std::vector<uint8_t>& values) {
  static constexpr uint32_t kGen[5] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
  uint32_t chk = 1;
  for (uint8_t v : values) {
    uint8_t top = static_cast<uint8_t>(chk >> 25);
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (int i = 0; i < 5; ++i)
      if ((top >> i) & 1) chk ^= kGen[i];
  }
  return chk;
}

std::string encode(const std::string& hrp, const std::vector<uint8_t>& words, Variant variant) {
  std::vector<uint8_t> values;
  for (char c : hrp) values.push_back(static_cast<uint8_t>(c) >> 5);
  values.push_back(0);
  for (char c : hrp) values.push_back(static_cast<uint8_t>(c) & 31);
  values.insert(values.end(), words.begin(), words.end());
  values.insert(values.end(), 6, 0);
  uint32_t constant = variant == Variant::kBech32 ? 1 : 0x2bc830a3;
  uint32_t mod = polymod(values) ^ constant;
  std::string out = hrp + "1";
  for (uint8_t w : words) out += kCharset[w];
  for (int i = 0; i < 6; ++i) out += kCharset[(mod >> (5 * (5 - i))) & 31];
  return out;
}

std::vector<uint8_t> toWords(const Bytes& data) {
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 31));
    }
  }
  if (bits > 0) out.push_back(static_cast<uint8_t>((acc << (5 - bits)) & 31));
  return out;
}
}  // namespace

std::string segwitAddress(const std::string& hrp, int witnessVersion, const Bytes& program) {
  std::vector<uint8_t> words{static_cast<uint8_t>(witnessVersion)};
  auto rest = toWords(program);
  words.insert(words.end(), rest.begin(), rest.end());
  return encode(hrp, words, witnessVersion == 0 ? Variant::kBech32 : Variant::kBech32m);
}

std::string encodeBytes(const std::string& hrp, const Bytes& data, Variant variant) {
  return encode(hrp, toWords(data), variant);
}

}  // namespace signet::bech32
