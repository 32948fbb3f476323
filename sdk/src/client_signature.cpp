#include "signet/client_signature.hpp"

#include <cstring>

namespace signet {

json::Object checkClientSignature(const json::Object& sig, const VerifiedContact& token,
                                  const std::string& usageType, const std::string& f) {
  std::string scheme = json::requireString(sig, "scheme", f);
  std::string publicKey = json::requireString(sig, "publicKey", f);
  std::string message = json::requireString(sig, "message", f);
  std::string signature = json::requireString(sig, "signature", f);
  if (scheme != "CLIENT_SIGNATURE_SCHEME_API_P256")
    throw invalidArgument("invalid field " + f + ".scheme: \"" + scheme +
                          "\" is not supported (expected CLIENT_SIGNATURE_SCHEME_API_P256)");
  if (!token.publicKey || *token.publicKey != publicKey)
    throw invalidArgument("invalid field " + f + ".publicKey: " + publicKey +
                          " is not the verification token's key");
  auto m = json::parseObject(message, f + ".message");
  if (m->optValue<std::string>("tokenId", "") != token.tokenId ||
      m->optValue<std::string>("type", "") != usageType)
    throw invalidArgument("invalid field " + f + ".message: it is not a " + usageType +
                          " use of token " + token.tokenId);
  auto raw = fromHex(signature);
  auto pub = fromHex(publicKey);
  crypto::EcdsaSignature s;
  bool ok = raw && raw->size() == 64 && pub;
  if (ok) {
    std::memcpy(s.r.data(), raw->data(), 32);
    std::memcpy(s.s.data(), raw->data() + 32, 32);
    ok = crypto::verifyEcdsa(crypto::Curve::kP256, *pub, crypto::sha256(message), s);
  }
  if (!ok)
    throw invalidArgument("invalid field " + f +
                          ".signature: does not verify over the message with the token's key");
  return m;
}

}  // namespace signet
