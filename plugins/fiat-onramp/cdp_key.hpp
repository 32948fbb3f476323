// A Coinbase Developer Platform secret API key's private half, and the JWT that authenticates a
// call to the CDP API with it (docs.cdp.coinbase.com, "API key authentication"): ES256 for an EC
// P-256 key given as PEM, EdDSA for an Ed25519 key given as base64 of its 64 bytes (seed then
// public key). The header carries kid = the key's id and a random nonce; the claims are
// iss "cdp", sub = the key's id, iat and nbf, exp two minutes later, and uris =
// ["<METHOD> <host><path>"], as @coinbase/cdp-sdk's generateJwt makes them.
#pragma once

#include <string>

#include "signet/crypto.hpp"

namespace fiat_onramp {

class CdpKey {
 public:
  // InvalidArgument naming `field` for anything else than the two forms above.
  static CdpKey parse(const signet::crypto::SecretBytes& text, const std::string& field);

  std::string jwt(const std::string& keyId, const std::string& method, const std::string& url,
                  int64_t nowSeconds) const;

 private:
  CdpKey(signet::crypto::Curve curve, signet::crypto::SecretBytes key)
      : curve_(curve), key_(std::move(key)) {}
  signet::crypto::Curve curve_;
  signet::crypto::SecretBytes key_;  // the P-256 scalar, or the Ed25519 seed
};

}  // namespace fiat_onramp
