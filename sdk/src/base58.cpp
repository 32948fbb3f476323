#include <algorithm>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet {

namespace {
int digitValue(char c) {
  auto pos = kBase58Bitcoin.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

std::array<uint8_t, 4> checksum(const Bytes& payload) {
  auto once = crypto::sha256(payload);
  auto twice = crypto::sha256(once.data(), once.size());
  return {twice[0], twice[1], twice[2], twice[3]};
}
}  // namespace

std::string base58Encode(const Bytes& data, std::string_view alphabet) {
  size_t zeros = 0;
  while (zeros < data.size() && data[zeros] == 0) ++zeros;
  // Base-58 digits, least significant first; schoolbook conversion (inputs are short).
  std::vector<uint8_t> digits;
  for (size_t i = zeros; i < data.size(); ++i) {
    int carry = data[i];
    for (auto& d : digits) {
      carry += d * 256;
      d = static_cast<uint8_t>(carry % 58);
      carry /= 58;
    }
    while (carry > 0) {
      digits.push_back(static_cast<uint8_t>(carry % 58));
      carry /= 58;
    }
  }
  std::string out(zeros, alphabet[0]);
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) out += alphabet[*it];
  return out;
}

std::optional<Bytes> base58Decode(std::string_view text) {
  size_t ones = 0;
  while (ones < text.size() && text[ones] == '1') ++ones;
  std::vector<uint8_t> bytes;  // least significant first
  for (size_t i = ones; i < text.size(); ++i) {
    int carry = digitValue(text[i]);
    if (carry < 0) return std::nullopt;
    for (auto& b : bytes) {
      carry += b * 58;
      b = static_cast<uint8_t>(carry & 0xff);
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push_back(static_cast<uint8_t>(carry & 0xff));
      carry >>= 8;
    }
  }
  Bytes out(ones, 0);
  out.insert(out.end(), bytes.rbegin(), bytes.rend());
  return out;
}

std::string base58CheckEncode(const Bytes& payload, std::string_view alphabet) {
  Bytes full = payload;
  auto sum = checksum(payload);
  full.insert(full.end(), sum.begin(), sum.end());
  return base58Encode(full, alphabet);
}

std::optional<Bytes> base58CheckDecode(std::string_view text) {
  auto full = base58Decode(text);
  if (!full || full->size() < 4) return std::nullopt;
  Bytes payload(full->begin(), full->end() - 4);
  auto sum = checksum(payload);
  if (!std::equal(sum.begin(), sum.end(), full->end() - 4)) return std::nullopt;
  return payload;
}

}  // namespace signet
