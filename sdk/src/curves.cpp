// Curve-generic entry points of signet/crypto.hpp, dispatching to the per-curve modules.
#include <stdexcept>

#include "ed25519.hpp"
#include "p256.hpp"
#include "secp256k1.hpp"

namespace signet::crypto {

std::optional<Bytes> normalizePublicKey(Curve curve, const Bytes& encoded) {
  switch (curve) {
    case Curve::kP256:
      return p256::normalize(encoded);
    case Curve::kSecp256k1:
      return k1::normalize(encoded);
    case Curve::kEd25519:
      if (!ed25519::isValidPoint(encoded)) return std::nullopt;
      return encoded;
  }
  return std::nullopt;
}

Bytes uncompressPublicKey(Curve curve, const Bytes& encoded) {
  switch (curve) {
    case Curve::kP256:
      return p256::uncompress(encoded);
    case Curve::kSecp256k1:
      return k1::uncompress(encoded);
    case Curve::kEd25519:
      break;
  }
  throw std::invalid_argument("Ed25519 keys have no uncompressed form");
}

bool verifyEcdsa(Curve curve, const Bytes& publicKey, const Digest& digest,
                 const EcdsaSignature& sig) {
  switch (curve) {
    case Curve::kP256:
      return p256::verify(publicKey, digest, sig);
    case Curve::kSecp256k1:
      return k1::verify(publicKey, digest, sig);
    case Curve::kEd25519:
      break;
  }
  return false;
}

bool verifyEd25519(const Bytes& publicKey, const uint8_t* msg, size_t size, const Bytes& sig) {
  return ed25519::verify(publicKey, msg, size, sig);
}

bool isValidPrivateKey(Curve curve, const SecretBytes& priv) {
  if (priv.size() != 32) return false;
  return curve == Curve::kEd25519 ||
         (curve == Curve::kP256 ? p256::isValidScalar(priv) : k1::isValidScalar(priv));
}

SecretBytes generatePrivateKey(Curve curve) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    SecretBytes candidate(randomBytes(32));
    if (isValidPrivateKey(curve, candidate)) return candidate;
  }
  throw std::runtime_error("could not draw a valid private key");
}

Bytes publicKeyFromPrivate(Curve curve, const SecretBytes& priv) {
  switch (curve) {
    case Curve::kP256:
      if (!p256::isValidScalar(priv)) throw std::invalid_argument("not a P-256 private key");
      return p256::publicKey(priv);
    case Curve::kSecp256k1:
      return k1::publicKey(priv);
    case Curve::kEd25519:
      return ed25519::publicKey(priv);
  }
  throw std::invalid_argument("unknown curve");
}

EcdsaSignature signEcdsa(Curve curve, const SecretBytes& priv, const Digest& digest) {
  switch (curve) {
    case Curve::kP256:
      return p256::sign(priv, digest);
    case Curve::kSecp256k1:
      return k1::sign(priv, digest).sig;
    case Curve::kEd25519:
      break;
  }
  throw std::invalid_argument("Ed25519 is not an ECDSA curve");
}

RecoverableSignature signSecp256k1Recoverable(const SecretBytes& priv, const Digest& digest) {
  return k1::sign(priv, digest);
}

Bytes signEd25519(const SecretBytes& seed, const uint8_t* msg, size_t size) {
  return ed25519::sign(seed, msg, size);
}

std::optional<Bytes> taprootOutputKey(const Bytes& publicKey) {
  return k1::taprootOutputKey(publicKey);
}

Bytes signTaprootKeyPath(const SecretBytes& priv, const Digest& message) {
  return k1::signTaprootKeyPath(priv, message);
}

bool verifySchnorr(const Bytes& xonly, const Digest& message, const Bytes& sig) {
  return k1::verifySchnorr(xonly, message, sig);
}

Bytes signSchnorr(const SecretBytes& priv, const Digest& message) {
  return k1::signSchnorr(priv, message);
}

std::optional<SecretBytes> addScalarsSecp256k1(const SecretBytes& a, const SecretBytes& b) {
  return k1::addScalars(a, b);
}
std::optional<SecretBytes> mulScalarsSecp256k1(const SecretBytes& a, const SecretBytes& b) {
  return k1::mulScalars(a, b);
}
std::optional<SecretBytes> negateScalarSecp256k1(const SecretBytes& a) {
  return k1::negateScalar(a);
}
std::optional<Bytes> sharedPointSecp256k1(const SecretBytes& priv, const Bytes& peerPublic) {
  return k1::sharedPoint(priv, peerPublic);
}

std::optional<SecretBytes> addScalarsP256(const SecretBytes& a, const SecretBytes& b) {
  return p256::addScalars(a, b);
}

std::optional<SecretBytes> ecdhP256(const SecretBytes& priv, const Bytes& peerPublic) {
  return p256::ecdh(priv, peerPublic);
}

}  // namespace signet::crypto
