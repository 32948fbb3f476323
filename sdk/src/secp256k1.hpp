// Internal: secp256k1 primitives (libsecp256k1) behind signet/crypto.hpp.
#pragma once
#include "signet/crypto.hpp"

namespace signet::crypto::k1 {
std::optional<Bytes> normalize(const Bytes& encoded);
Bytes uncompress(const Bytes& encoded);
bool verify(const Bytes& publicKey, const Digest& digest, const EcdsaSignature& sig);
bool isValidScalar(const SecretBytes& priv);
Bytes publicKey(const SecretBytes& priv);
RecoverableSignature sign(const SecretBytes& priv, const Digest& digest);
std::optional<Bytes> taprootOutputKey(const Bytes& publicKey);
Bytes signTaprootKeyPath(const SecretBytes& priv, const Digest& message);
bool verifySchnorr(const Bytes& xonly, const Digest& message, const Bytes& sig);
Bytes signSchnorr(const SecretBytes& priv, const Digest& message);
std::optional<SecretBytes> addScalars(const SecretBytes& a, const SecretBytes& b);
std::optional<SecretBytes> mulScalars(const SecretBytes& a, const SecretBytes& b);
std::optional<SecretBytes> negateScalar(const SecretBytes& a);
std::optional<Bytes> sharedPoint(const SecretBytes& priv, const Bytes& peer);
}  // namespace signet::crypto::k1
