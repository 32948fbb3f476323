#include "stamp_check.hpp"

#include "signet/error.hpp"

namespace signet {

VerifiedApiKeyStamp verifyApiKeyStamp(const std::string& header, std::string_view body) {
  std::string why;
  auto decoded = stamp::decodeHeader(header, why);
  if (!decoded) throw unauthenticated("malformed X-Stamp: " + why, "SIGNATURE_INVALID");
  auto scheme = stamp::parseScheme(decoded->scheme);
  if (!scheme)
    throw unauthenticated("X-Stamp scheme \"" + decoded->scheme +
                              "\" is not supported (expected SIGNATURE_SCHEME_TK_API_P256, "
                              "_SECP256K1, _SECP256K1_EIP191 or _ED25519)",
                          "SIGNATURE_INVALID");
  auto publicKey = fromHex(decoded->publicKey);
  auto signature = fromHex(decoded->signature);
  if (!publicKey || !signature)
    throw unauthenticated("X-Stamp publicKey and signature must be hex", "SIGNATURE_INVALID");
  auto canonical = crypto::normalizePublicKey(stamp::curveOf(*scheme), *publicKey);
  if (!canonical)
    throw unauthenticated("X-Stamp publicKey " + decoded->publicKey + " is not a " +
                              crypto::curveName(stamp::curveOf(*scheme)) + " public key",
                          "SIGNATURE_INVALID");
  if (!stamp::verify(*scheme, *canonical, *signature, body))
    throw unauthenticated(
        "X-Stamp signature does not verify over the request body with public "
        "key " +
            toHex(*canonical) + " (" + decoded->scheme + ")",
        "SIGNATURE_INVALID");
  return {*scheme, toHex(*canonical), decoded->signature};
}

}  // namespace signet
