#include "signet/hpke.hpp"

#include <stdexcept>

namespace signet::hpke {

namespace {
// Suite identifiers (RFC 9180 §7): KEM 0x0010, KDF 0x0001, AEAD 0x0002.
const Bytes kKemSuite = {'K', 'E', 'M', 0x00, 0x10};
const Bytes kHpkeSuite = {'H', 'P', 'K', 'E', 0x00, 0x10, 0x00, 0x01, 0x00, 0x02};
constexpr size_t kKeyBytes = 32, kNonceBytes = 12, kSecretBytes = 32;

void append(Bytes& out, const Bytes& b) {
  out.insert(out.end(), b.begin(), b.end());
}
void append(Bytes& out, std::string_view s) {
  out.insert(out.end(), s.begin(), s.end());
}

// LabeledExtract(salt, label, ikm) = HKDF-Extract(salt, "HPKE-v1" || suite || label || ikm).
crypto::SecretBytes labeledExtract(const Bytes& suite, const Bytes& salt, std::string_view label,
                                   const Bytes& ikm) {
  Bytes input;
  append(input, "HPKE-v1");
  append(input, suite);
  append(input, label);
  append(input, ikm);
  auto prk = crypto::hkdfExtract(salt, input);
  crypto::wipe(input.data(), input.size());
  return prk;
}

// LabeledExpand(prk, label, info, L) = HKDF-Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite ||
// label || info, L).
crypto::SecretBytes labeledExpand(const Bytes& suite, const crypto::SecretBytes& prk,
                                  std::string_view label, const Bytes& info, size_t length) {
  Bytes labeled = {static_cast<uint8_t>(length >> 8), static_cast<uint8_t>(length)};
  append(labeled, "HPKE-v1");
  append(labeled, suite);
  append(labeled, label);
  append(labeled, info);
  return crypto::hkdfExpand(prk, labeled, length);
}

// DHKEM ExtractAndExpand: the KEM shared secret from the DH value and enc || pkR.
crypto::SecretBytes sharedSecret(const crypto::SecretBytes& dh, const Bytes& encapped,
                                 const Bytes& receiverUncompressed) {
  auto eaePrk = labeledExtract(kKemSuite, {}, "eae_prk", dh.bytes());
  Bytes kemContext = encapped;
  append(kemContext, receiverUncompressed);
  return labeledExpand(kKemSuite, eaePrk, "shared_secret", kemContext, kSecretBytes);
}

// The base-mode key schedule: the AEAD key and the (first) nonce.
struct Schedule {
  crypto::SecretBytes key;
  Bytes nonce;
};
Schedule keySchedule(const crypto::SecretBytes& shared, const Bytes& info) {
  auto pskIdHash = labeledExtract(kHpkeSuite, {}, "psk_id_hash", {});
  auto infoHash = labeledExtract(kHpkeSuite, {}, "info_hash", info);
  Bytes context = {0x00};  // mode_base
  append(context, pskIdHash.bytes());
  append(context, infoHash.bytes());
  auto secret = labeledExtract(kHpkeSuite, shared.bytes(), "secret", {});
  Schedule s;
  s.key = labeledExpand(kHpkeSuite, secret, "key", context, kKeyBytes);
  s.nonce = labeledExpand(kHpkeSuite, secret, "base_nonce", context, kNonceBytes).bytes();
  return s;
}

Bytes uncompressedOrThrow(const Bytes& key) {
  auto canonical = crypto::normalizePublicKey(crypto::Curve::kP256, key);
  if (!canonical) throw std::invalid_argument("HPKE receiver key is not a P-256 public key");
  return crypto::uncompressPublicKey(crypto::Curve::kP256, *canonical);
}
}  // namespace

Sealed sealWithEphemeral(const crypto::SecretBytes& ephemeral, const Bytes& receiverPublic,
                         const uint8_t* plaintext, size_t size, const Bytes& info, AadFor aadFor) {
  Bytes receiver = uncompressedOrThrow(receiverPublic);
  Bytes encapped = crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, ephemeral));
  auto dh = crypto::ecdhP256(ephemeral, receiver);
  if (!dh) throw std::invalid_argument("HPKE: bad ephemeral or receiver key");
  auto schedule = keySchedule(sharedSecret(*dh, encapped, receiver), info);
  Sealed out;
  out.ciphertext =
      crypto::aesGcmSeal(schedule.key, schedule.nonce, plaintext, size, aadFor(encapped, receiver));
  out.encappedPublic = std::move(encapped);
  return out;
}

Sealed seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size, const Bytes& info,
            AadFor aadFor) {
  auto ephemeral = crypto::generatePrivateKey(crypto::Curve::kP256);
  return sealWithEphemeral(ephemeral, receiverPublic, plaintext, size, info, aadFor);
}

std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const Bytes& encappedPublic, const Bytes& ciphertext,
                                        const Bytes& info, AadFor aadFor) {
  auto canonical = crypto::normalizePublicKey(crypto::Curve::kP256, encappedPublic);
  if (!canonical) return std::nullopt;
  Bytes encapped = crypto::uncompressPublicKey(crypto::Curve::kP256, *canonical);
  auto dh = crypto::ecdhP256(receiverPrivate, encapped);
  if (!dh) return std::nullopt;
  Bytes receiver = crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, receiverPrivate));
  auto schedule = keySchedule(sharedSecret(*dh, encapped, receiver), info);
  return crypto::aesGcmOpen(schedule.key, schedule.nonce, ciphertext, aadFor(encapped, receiver));
}

crypto::SecretBytes deriveKeyPair(const Bytes& ikm) {
  auto prk = labeledExtract(kKemSuite, {}, "dkp_prk", ikm);
  for (int counter = 0; counter < 256; ++counter) {
    auto candidate =
        labeledExpand(kKemSuite, prk, "candidate", Bytes{static_cast<uint8_t>(counter)}, 32);
    // The P-256 bitmask is 0xff: nothing to clear. Accept the first scalar in [1, n).
    if (crypto::isValidPrivateKey(crypto::Curve::kP256, candidate)) return candidate;
  }
  throw std::runtime_error("HPKE DeriveKeyPair: no valid candidate");
}

}  // namespace signet::hpke
