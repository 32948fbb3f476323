#include "signet/key_params.hpp"

#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace signet {

Bytes p256PublicKeyParam(const std::string& hex, const std::string& field) {
  auto bytes = fromHex(hex);
  auto canonical = bytes ? crypto::normalizePublicKey(crypto::Curve::kP256, *bytes) : std::nullopt;
  if (!canonical)
    throw invalidArgument("invalid field " + field + ": \"" + hex + "\" is not a P-256 public key");
  return *canonical;
}

}  // namespace signet
