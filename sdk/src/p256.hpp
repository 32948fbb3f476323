// Internal: P-256 primitives behind the curve-generic functions of signet/crypto.hpp.
#pragma once
#include "signet/crypto.hpp"

namespace signet::crypto::p256 {
std::optional<Bytes> normalize(const Bytes& encoded);
Bytes uncompress(const Bytes& encoded);
bool verify(const Bytes& publicKey, const Digest& digest, const EcdsaSignature& sig);
bool isValidScalar(const SecretBytes& priv);
Bytes publicKey(const SecretBytes& priv);
EcdsaSignature sign(const SecretBytes& priv, const Digest& digest);
std::optional<SecretBytes> addScalars(const SecretBytes& a, const SecretBytes& b);
std::optional<SecretBytes> ecdh(const SecretBytes& priv, const Bytes& peerPublic);
}  // namespace signet::crypto::p256
