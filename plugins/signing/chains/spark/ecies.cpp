#include "chains/spark/ecies.hpp"

#include <stdexcept>

namespace signing {

using namespace signet;

namespace {
constexpr size_t kPointSize = 65, kNonceSize = 16, kTagSize = 16;

crypto::SecretBytes sharedKey(const Bytes& ephemeralPublic, const Bytes& sharedPoint) {
  Bytes ikm = ephemeralPublic;
  crypto::WipeOnExit wipeIkm(ikm);
  ikm.insert(ikm.end(), sharedPoint.begin(), sharedPoint.end());
  return crypto::hkdfSha256({}, ikm, {}, 32);
}
}  // namespace

Bytes eciesEncrypt(const Bytes& recipientPublic, const uint8_t* data, size_t size) {
  auto ephemeral = crypto::generatePrivateKey(crypto::Curve::kSecp256k1);
  Bytes ephemeralPublic = crypto::uncompressPublicKey(
      crypto::Curve::kSecp256k1,
      crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, ephemeral));
  auto shared = crypto::sharedPointSecp256k1(ephemeral, recipientPublic);
  if (!shared) throw std::invalid_argument("not a secp256k1 public key");
  crypto::WipeOnExit wipeShared(*shared);
  auto key = sharedKey(ephemeralPublic, *shared);
  Bytes nonce = crypto::randomBytes(kNonceSize);
  Bytes sealed = crypto::aesGcmSeal(key, nonce, data, size, {});  // ciphertext ‖ tag
  Bytes out = ephemeralPublic;
  out.insert(out.end(), nonce.begin(), nonce.end());
  out.insert(out.end(), sealed.end() - kTagSize, sealed.end());
  out.insert(out.end(), sealed.begin(), sealed.end() - kTagSize);
  return out;
}

std::optional<crypto::SecretBytes> eciesDecrypt(const crypto::SecretBytes& priv,
                                                const Bytes& sealed) {
  if (sealed.size() < kPointSize + kNonceSize + kTagSize) return std::nullopt;
  Bytes ephemeralPublic(sealed.begin(), sealed.begin() + kPointSize);
  auto shared = crypto::sharedPointSecp256k1(priv, ephemeralPublic);
  if (!shared) return std::nullopt;
  crypto::WipeOnExit wipeShared(*shared);
  auto key = sharedKey(ephemeralPublic, *shared);
  auto nonceAt = sealed.begin() + kPointSize, tagAt = nonceAt + kNonceSize;
  Bytes nonce(nonceAt, tagAt);
  Bytes body(tagAt + kTagSize, sealed.end());  // ciphertext, then the tag as aesGcmOpen reads it
  body.insert(body.end(), tagAt, tagAt + kTagSize);
  return crypto::aesGcmOpen(key, nonce, body, {});
}

}  // namespace signing
