#include "signet/jwt.hpp"

#include <cstring>

namespace signet::jwt {

namespace {
crypto::Digest digestOf(const std::string& signingInput, Hashing hashing) {
  auto once = crypto::sha256(signingInput);
  if (hashing == Hashing::kSingleSha256) return once;
  return crypto::sha256(once.data(), once.size());
}
}  // namespace

std::optional<Parts> split(const std::string& token) {
  auto a = token.find('.');
  if (a == std::string::npos) return std::nullopt;
  auto b = token.find('.', a + 1);
  if (b == std::string::npos || token.find('.', b + 1) != std::string::npos) return std::nullopt;
  return Parts{token.substr(0, a), token.substr(a + 1, b - a - 1), token.substr(b + 1)};
}

std::vector<std::string> audiences(const json::Object& claims) {
  std::vector<std::string> out;
  if (!claims->has("aud")) return out;
  auto aud = claims->get("aud");
  if (aud.isString()) {
    out.push_back(aud.extract<std::string>());
  } else if (aud.type() == typeid(json::Array)) {
    auto list = aud.extract<json::Array>();
    for (size_t i = 0; i < list->size(); ++i)
      if (list->get(static_cast<unsigned>(i)).isString())
        out.push_back(list->getElement<std::string>(static_cast<unsigned>(i)));
  }
  return out;
}

std::string signEs256(const crypto::SecretBytes& privateKey, const json::Object& header,
                      const json::Object& claims, Hashing hashing) {
  std::string input =
      base64UrlEncode(json::stringify(header)) + "." + base64UrlEncode(json::stringify(claims));
  auto sig = crypto::signEcdsa(crypto::Curve::kP256, privateKey, digestOf(input, hashing));
  Bytes raw(sig.r.begin(), sig.r.end());
  raw.insert(raw.end(), sig.s.begin(), sig.s.end());
  return input + "." + base64UrlEncode(raw);
}

std::string signEs256(const crypto::DigestSigner& sign, const std::string& headerJson,
                      const std::string& claimsJson, Hashing hashing) {
  std::string input = base64UrlEncode(headerJson) + "." + base64UrlEncode(claimsJson);
  auto sig = sign(digestOf(input, hashing));
  Bytes raw(sig.r.begin(), sig.r.end());
  raw.insert(raw.end(), sig.s.begin(), sig.s.end());
  return input + "." + base64UrlEncode(raw);
}

namespace {
void appendEscape(std::string& out, uint32_t unit) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(unit >> shift) & 0xf];
}
// The next code point of UTF-8 text; U+FFFD for a malformed sequence.
uint32_t nextCodePoint(const std::string& s, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t b = byte(i++);
  int extra = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : 0;
  if (b >= 0x80 && extra == 0) return 0xfffd;
  uint32_t cp = extra == 3 ? b & 0x07 : extra == 2 ? b & 0x0f : extra == 1 ? b & 0x1f : b;
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (byte(i) & 0xc0) != 0x80) return 0xfffd;
    cp = (cp << 6) | (byte(i++) & 0x3f);
  }
  return cp > 0x10ffff ? 0xfffd : cp;
}
}  // namespace

std::string atobSafeJsonString(const std::string& utf8) {
  std::string out = "\"";
  for (size_t i = 0; i < utf8.size();) {
    uint32_t cp = nextCodePoint(utf8, i);
    if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp >= 0x20 && cp < 0x7f && cp != '>' && cp != '?' && cp != '~') {
      out += static_cast<char>(cp);
    } else if (cp > 0xffff) {  // a surrogate pair
      cp -= 0x10000;
      appendEscape(out, 0xd800 + (cp >> 10));
      appendEscape(out, 0xdc00 + (cp & 0x3ff));
    } else {
      appendEscape(out, cp);
    }
  }
  return out + "\"";
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

std::string oidcNonce(const std::string& compressedPublicKeyHex) {
  auto d = crypto::sha256(compressedPublicKeyHex);
  return toHex(Bytes(d.begin(), d.end()));
}

}  // namespace signet::jwt
