#include "signet/quorum_envelope.hpp"

#include <cstring>
#include <stdexcept>

namespace signet::quorum_envelope {

namespace {
constexpr size_t kNonceBytes = 12, kKeyBytes = 65;
constexpr std::string_view kHmacMessage = "qos_encryption_hmac_message";

crypto::SecretBytes cipherKey(const Bytes& sender, const Bytes& receiver,
                              const crypto::SecretBytes& shared) {
  Bytes preImage = sender;
  preImage.insert(preImage.end(), receiver.begin(), receiver.end());
  preImage.insert(preImage.end(), shared.data(), shared.data() + shared.size());
  auto mac = crypto::hmacSha512(preImage, reinterpret_cast<const uint8_t*>(kHmacMessage.data()),
                                kHmacMessage.size());
  crypto::SecretBytes key(Bytes(mac.begin(), mac.begin() + 32));
  std::fill(preImage.begin(), preImage.end(), 0);
  std::fill(mac.begin(), mac.end(), 0);
  return key;
}

Bytes aad(const Bytes& sender, const Bytes& receiver) {
  Bytes out = sender;
  out.push_back(static_cast<uint8_t>(sender.size()));
  out.insert(out.end(), receiver.begin(), receiver.end());
  out.push_back(static_cast<uint8_t>(receiver.size()));
  return out;
}

Bytes uncompressed(const crypto::SecretBytes& priv) {
  return crypto::uncompressPublicKey(crypto::Curve::kP256,
                                     crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
}
}  // namespace

Bytes seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size) {
  Bytes receiver = crypto::uncompressPublicKey(crypto::Curve::kP256, receiverPublic);
  auto ephemeral = crypto::generatePrivateKey(crypto::Curve::kP256);
  Bytes sender = uncompressed(ephemeral);
  auto shared = crypto::ecdhP256(ephemeral, receiver);
  if (!shared) throw std::invalid_argument("quorum envelope: bad receiver key");
  Bytes nonce = crypto::randomBytes(kNonceBytes);
  Bytes sealed = crypto::aesGcmSeal(cipherKey(sender, receiver, *shared), nonce, plaintext, size,
                                    aad(sender, receiver));
  Bytes out = nonce;
  out.insert(out.end(), sender.begin(), sender.end());
  uint32_t n = static_cast<uint32_t>(sealed.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
  out.insert(out.end(), sealed.begin(), sealed.end());
  return out;
}

std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const Bytes& envelope) {
  if (envelope.size() < kNonceBytes + kKeyBytes + 4) return std::nullopt;
  Bytes nonce(envelope.begin(), envelope.begin() + kNonceBytes);
  Bytes sender(envelope.begin() + kNonceBytes, envelope.begin() + kNonceBytes + kKeyBytes);
  size_t at = kNonceBytes + kKeyBytes;
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(envelope[at + i]) << (8 * i);
  at += 4;
  if (envelope.size() - at != n) return std::nullopt;
  Bytes sealed(envelope.begin() + static_cast<long>(at), envelope.end());
  auto normalized = crypto::normalizePublicKey(crypto::Curve::kP256, sender);
  if (!normalized || sender[0] != 0x04) return std::nullopt;
  Bytes receiver = uncompressed(receiverPrivate);
  auto shared = crypto::ecdhP256(receiverPrivate, sender);
  if (!shared) return std::nullopt;
  return crypto::aesGcmOpen(cipherKey(sender, receiver, *shared), nonce, sealed,
                            aad(sender, receiver));
}

}  // namespace signet::quorum_envelope
