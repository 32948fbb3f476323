#include "signet/client_signature.hpp"

#include <cstring>

namespace signet {

namespace {

void checkScheme(const json::Object& sig, const std::string& f) {
  std::string scheme = json::requireString(sig, "scheme", f);
  if (scheme != "CLIENT_SIGNATURE_SCHEME_API_P256")
    throw invalidArgument("invalid field " + f + ".scheme: \"" + scheme +
                          "\" is not supported (expected CLIENT_SIGNATURE_SCHEME_API_P256)");
}

// `signature` (hex: raw r‖s, or DER) over SHA-256 of `message` by `publicKey` (hex).
void checkVerifies(const std::string& publicKey, const std::string& message,
                   const std::string& signature, const std::string& f) {
  auto raw = fromHex(signature);
  auto pub = fromHex(publicKey);
  std::optional<crypto::EcdsaSignature> s;
  if (raw && raw->size() == 64) {
    s.emplace();
    std::memcpy(s->r.data(), raw->data(), 32);
    std::memcpy(s->s.data(), raw->data() + 32, 32);
  } else if (raw) {
    s = crypto::parseDerSignature(*raw);
  }
  bool ok =
      s && pub && crypto::verifyEcdsa(crypto::Curve::kP256, *pub, crypto::sha256(message), *s);
  if (!ok)
    throw invalidArgument("invalid field " + f +
                          ".signature: does not verify over the message with the token's key");
}

}  // namespace

json::Object checkClientSignature(const json::Object& sig, const VerifiedContact& token,
                                  const std::string& usageType, const std::string& f) {
  checkScheme(sig, f);
  std::string publicKey = json::requireString(sig, "publicKey", f);
  if (!token.publicKey || *token.publicKey != publicKey)
    throw invalidArgument("invalid field " + f + ".publicKey: " + publicKey +
                          " is not the verification token's key");
  std::string message = json::requireString(sig, "message", f);
  auto m = json::parseObject(message, f + ".message");
  if (m->optValue<std::string>("tokenId", "") != token.tokenId ||
      m->optValue<std::string>("type", "") != usageType)
    throw invalidArgument("invalid field " + f + ".message: it is not a " + usageType +
                          " use of token " + token.tokenId);
  checkVerifies(publicKey, message, json::requireString(sig, "signature", f), f);
  return m;
}

void checkTokenSignature(const json::Object& sig, const std::string& boundKey,
                         const std::string& tokenText, const std::string& f) {
  checkScheme(sig, f);
  if (json::requireString(sig, "message", f) != tokenText)
    throw invalidArgument("invalid field " + f + ".message: it is not the verification token");
  checkVerifies(boundKey, tokenText, json::requireString(sig, "signature", f), f);
}

}  // namespace signet
