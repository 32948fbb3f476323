#include "signet/jwt.hpp"

#include <cstring>

namespace signet::jwt {

namespace {
crypto::Digest digestOf(const std::string& signingInput, Hashing hashing) {
  auto once = crypto::sha256(signingInput);
  if (hashing == Hashing::kSingleSha256) return once;
  return crypto::sha256(once.data(), once.size());
}

struct Parts {
  std::string header, payload, signature;
};
std::optional<Parts> split(const std::string& token) {
  auto a = token.find('.');
  if (a == std::string::npos) return std::nullopt;
  auto b = token.find('.', a + 1);
  if (b == std::string::npos || token.find('.', b + 1) != std::string::npos) return std::nullopt;
  return Parts{token.substr(0, a), token.substr(a + 1, b - a - 1), token.substr(b + 1)};
}
}  // namespace

std::string signEs256(const crypto::SecretBytes& privateKey, const json::Object& header,
                      const json::Object& claims, Hashing hashing) {
  std::string input =
      base64UrlEncode(json::stringify(header)) + "." + base64UrlEncode(json::stringify(claims));
  auto sig = crypto::signEcdsa(crypto::Curve::kP256, privateKey, digestOf(input, hashing));
  Bytes raw(sig.r.begin(), sig.r.end());
  raw.insert(raw.end(), sig.s.begin(), sig.s.end());
  return input + "." + base64UrlEncode(raw);
}

std::optional<json::Object> decodeClaims(const std::string& token) {
  auto parts = split(token);
  if (!parts) return std::nullopt;
  auto payload = base64Decode(parts->payload);
  if (!payload) return std::nullopt;
  try {
    return json::parseObject(toString(*payload), "token claims");
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<json::Object> verifyEs256(const std::string& token, const Bytes& publicKey,
                                        Hashing hashing) {
  auto parts = split(token);
  if (!parts) return std::nullopt;
  auto raw = base64Decode(parts->signature);
  if (!raw || raw->size() != 64) return std::nullopt;
  crypto::EcdsaSignature sig;
  std::memcpy(sig.r.data(), raw->data(), 32);
  std::memcpy(sig.s.data(), raw->data() + 32, 32);
  if (!crypto::verifyEcdsa(crypto::Curve::kP256, publicKey,
                           digestOf(parts->header + "." + parts->payload, hashing), sig))
    return std::nullopt;
  return decodeClaims(token);
}

}  // namespace signet::jwt
