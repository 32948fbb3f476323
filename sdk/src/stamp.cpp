#include "signet/stamp.hpp"

#include <Poco/JSON/Object.h>

#include "signet/json.hpp"

namespace signet::stamp {

namespace {
struct SchemeInfo {
  Scheme scheme;
  const char* name;
  crypto::Curve curve;
};
constexpr SchemeInfo kSchemes[] = {
    {Scheme::kP256, "SIGNATURE_SCHEME_TK_API_P256", crypto::Curve::kP256},
    {Scheme::kSecp256k1, "SIGNATURE_SCHEME_TK_API_SECP256K1", crypto::Curve::kSecp256k1},
    {Scheme::kSecp256k1Eip191, "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191",
     crypto::Curve::kSecp256k1},
    {Scheme::kEd25519, "SIGNATURE_SCHEME_TK_API_ED25519", crypto::Curve::kEd25519},
};
}  // namespace

std::optional<Scheme> parseScheme(std::string_view name) {
  for (const auto& s : kSchemes)
    if (name == s.name) return s.scheme;
  return std::nullopt;
}

const char* schemeName(Scheme scheme) {
  for (const auto& s : kSchemes)
    if (s.scheme == scheme) return s.name;
  return "?";
}

crypto::Curve curveOf(Scheme scheme) {
  for (const auto& s : kSchemes)
    if (s.scheme == scheme) return s.curve;
  return crypto::Curve::kP256;
}

namespace {
// The stamp as every stamper writes it: an object of exactly the three members, in any order,
// each a string of letters, digits and underscores (hex and scheme names), with optional
// whitespace between tokens. What this accepts the JSON parser reads alike, to the byte; any
// other text (an escape, a fourth or repeated member) is left to that parser, which costs a
// request about as much as its SHA-256.
std::optional<ApiKeyStamp> plainStamp(std::string_view text) {
  size_t at = 0;
  auto skipSpace = [&] {
    while (at < text.size() &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
      ++at;
  };
  auto take = [&](char c) {
    skipSpace();
    if (at >= text.size() || text[at] != c) return false;
    ++at;
    return true;
  };
  auto plainString = [&]() -> std::optional<std::string_view> {
    if (!take('"')) return std::nullopt;
    auto plain = [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    size_t start = at;
    while (at < text.size() && plain(text[at])) ++at;
    if (at >= text.size() || text[at] != '"') return std::nullopt;
    return text.substr(start, at++ - start);
  };
  ApiKeyStamp s;
  bool seen[3] = {false, false, false};
  if (!take('{')) return std::nullopt;
  for (int member = 0; member < 3; ++member) {
    if (member > 0 && !take(',')) return std::nullopt;
    auto key = plainString();
    if (!key || !take(':')) return std::nullopt;
    auto value = plainString();
    if (!value) return std::nullopt;
    int slot = *key == "publicKey" ? 0 : *key == "scheme" ? 1 : *key == "signature" ? 2 : -1;
    if (slot < 0 || seen[slot]) return std::nullopt;
    seen[slot] = true;
    (slot == 0 ? s.publicKey : slot == 1 ? s.scheme : s.signature) = std::string(*value);
  }
  if (!take('}')) return std::nullopt;
  skipSpace();
  if (at != text.size()) return std::nullopt;
  return s;
}
}  // namespace

std::optional<ApiKeyStamp> decodeHeader(std::string_view value, std::string& error) {
  auto raw = base64Decode(value);
  if (!raw) {
    error = "X-Stamp is not base64url";
    return std::nullopt;
  }
  if (auto plain =
          plainStamp(std::string_view(reinterpret_cast<const char*>(raw->data()), raw->size())))
    return plain;
  try {
    auto obj = json::parseObject(toString(*raw), "X-Stamp");
    ApiKeyStamp s;
    s.publicKey = json::requireString(obj, "publicKey", "X-Stamp");
    s.scheme = json::requireString(obj, "scheme", "X-Stamp");
    s.signature = json::requireString(obj, "signature", "X-Stamp");
    return s;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::string encodeHeader(const ApiKeyStamp& stamp) {
  // Key order as the TypeScript stamper writes it; the gateway accepts any order.
  std::string json = "{\"publicKey\":" + json::stringify(stamp.publicKey) +
                     ",\"scheme\":" + json::stringify(stamp.scheme) +
                     ",\"signature\":" + json::stringify(stamp.signature) + "}";
  return base64UrlEncode(json);
}

crypto::Digest messageDigest(Scheme scheme, std::string_view body) {
  if (scheme == Scheme::kSecp256k1Eip191) {
    std::string msg =
        "\x19"
        "Ethereum Signed Message:\n" +
        std::to_string(body.size());
    msg.append(body);
    return crypto::keccak256(msg);
  }
  return crypto::sha256(body);
}

bool verify(Scheme scheme, const Bytes& publicKey, const Bytes& signature, std::string_view body) {
  if (scheme == Scheme::kEd25519)
    return crypto::verifyEd25519(publicKey, reinterpret_cast<const uint8_t*>(body.data()),
                                 body.size(), signature);
  auto sig = crypto::parseDerSignature(signature);
  if (!sig) return false;
  return crypto::verifyEcdsa(curveOf(scheme), publicKey, messageDigest(scheme, body), *sig);
}

ApiKeyStamp sign(Scheme scheme, const crypto::SecretBytes& priv, std::string_view body) {
  crypto::Curve curve = curveOf(scheme);
  ApiKeyStamp out;
  out.scheme = schemeName(scheme);
  out.publicKey = toHex(crypto::publicKeyFromPrivate(curve, priv));
  if (scheme == Scheme::kEd25519) {
    out.signature = toHex(
        crypto::signEd25519(priv, reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  } else {
    out.signature = toHex(
        crypto::encodeDerSignature(crypto::signEcdsa(curve, priv, messageDigest(scheme, body))));
  }
  return out;
}

}  // namespace signet::stamp
