// How the proxy API key travels from the coordinator to a proxy: HPKE (RFC 9180, P-256,
// HKDF-SHA256, AES-256-GCM) to the proxy's service key, bound to both public keys by the AAD.
// The proxy keeps it sealed and opens it only to stamp one request (SealedKeyStamper).
#pragma once

#include <memory>
#include <string>

#include "signet/client.hpp"
#include "signet/crypto.hpp"
#include "signet/json.hpp"

namespace auth_proxy {

struct SealedKey {
  std::string encappedPublic;  // hex
  std::string ciphertext;      // hex
};

SealedKey sealProxyKey(const signet::crypto::SecretBytes& apiKey,
                       const signet::Bytes& serviceKeyPublic);
// InvalidArgument-free: Unauthenticated when it does not open under `serviceKey`.
signet::crypto::SecretBytes openProxyKey(const SealedKey& sealed,
                                         const signet::crypto::SecretBytes& serviceKey);

signet::json::Object sealedKeyJson(const SealedKey& k);
SealedKey sealedKeyFrom(const signet::json::Object& o, const std::string& path);

// Stamps each request with the proxy API key, opened for that one stamp and wiped after.
class SealedKeyStamper : public signet::Stamper {
 public:
  SealedKeyStamper(SealedKey sealed, std::shared_ptr<const signet::crypto::SecretBytes> serviceKey)
      : sealed_(std::move(sealed)), serviceKey_(std::move(serviceKey)) {}
  std::pair<std::string, std::string> stamp(std::string_view body) override;

 private:
  SealedKey sealed_;
  std::shared_ptr<const signet::crypto::SecretBytes> serviceKey_;
};

}  // namespace auth_proxy
