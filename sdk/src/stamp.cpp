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

std::optional<ApiKeyStamp> decodeHeader(std::string_view value, std::string& error) {
  auto raw = base64Decode(value);
  if (!raw) {
    error = "X-Stamp is not base64url";
    return std::nullopt;
  }
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
