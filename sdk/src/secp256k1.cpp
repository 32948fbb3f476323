#include "secp256k1.hpp"

#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_recovery.h>
#include <secp256k1_schnorrsig.h>

#include <cstring>
#include <stdexcept>

namespace signet::crypto::k1 {

namespace {
// One context for the process: libsecp256k1 contexts are safe to share once randomized.
const secp256k1_context* ctx() {
  static secp256k1_context* c = [] {
    secp256k1_context* created =
        secp256k1_context_create(SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY);
    uint8_t seed[32];
    randomBytes(seed, sizeof seed);
    if (secp256k1_context_randomize(created, seed) != 1)
      throw std::runtime_error("secp256k1 context randomization failed");
    wipe(seed, sizeof seed);
    return created;
  }();
  return c;
}

std::optional<secp256k1_pubkey> parse(const Bytes& encoded) {
  secp256k1_pubkey pk;
  if (encoded.size() != 33 && encoded.size() != 65) return std::nullopt;
  if (secp256k1_ec_pubkey_parse(ctx(), &pk, encoded.data(), encoded.size()) != 1)
    return std::nullopt;
  return pk;
}

Bytes serialize(const secp256k1_pubkey& pk, bool compressed) {
  Bytes out(compressed ? 33 : 65);
  size_t len = out.size();
  secp256k1_ec_pubkey_serialize(ctx(), out.data(), &len, &pk,
                                compressed ? SECP256K1_EC_COMPRESSED : SECP256K1_EC_UNCOMPRESSED);
  return out;
}
}  // namespace

std::optional<Bytes> normalize(const Bytes& encoded) {
  auto pk = parse(encoded);
  if (!pk) return std::nullopt;
  return serialize(*pk, true);
}

Bytes uncompress(const Bytes& encoded) {
  auto pk = parse(encoded);
  if (!pk) throw std::invalid_argument("not a secp256k1 point");
  return serialize(*pk, false);
}

bool verify(const Bytes& publicKey, const Digest& digest, const EcdsaSignature& sig) {
  auto pk = parse(publicKey);
  if (!pk) return false;
  uint8_t compact[64];
  std::memcpy(compact, sig.r.data(), 32);
  std::memcpy(compact + 32, sig.s.data(), 32);
  secp256k1_ecdsa_signature s;
  if (secp256k1_ecdsa_signature_parse_compact(ctx(), &s, compact) != 1) return false;
  // libsecp256k1 only verifies low-S; clients do not all normalize, so we do it here.
  secp256k1_ecdsa_signature_normalize(ctx(), &s, &s);
  return secp256k1_ecdsa_verify(ctx(), &s, digest.data(), &*pk) == 1;
}

bool isValidScalar(const SecretBytes& priv) {
  return priv.size() == 32 && secp256k1_ec_seckey_verify(ctx(), priv.data()) == 1;
}

Bytes publicKey(const SecretBytes& priv) {
  secp256k1_pubkey pk;
  if (!isValidScalar(priv) || secp256k1_ec_pubkey_create(ctx(), &pk, priv.data()) != 1)
    throw std::invalid_argument("not a secp256k1 private key");
  return serialize(pk, true);
}

RecoverableSignature sign(const SecretBytes& priv, const Digest& digest) {
  if (!isValidScalar(priv)) throw std::invalid_argument("not a secp256k1 private key");
  secp256k1_ecdsa_recoverable_signature rs;
  if (secp256k1_ecdsa_sign_recoverable(ctx(), &rs, digest.data(), priv.data(), nullptr, nullptr) !=
      1)
    throw std::runtime_error("secp256k1 signing failed");
  uint8_t compact[64];
  int recid = 0;
  secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx(), compact, &recid, &rs);
  RecoverableSignature out;
  std::memcpy(out.sig.r.data(), compact, 32);
  std::memcpy(out.sig.s.data(), compact + 32, 32);
  out.recoveryId = recid;
  return out;
}

std::optional<Bytes> taprootOutputKey(const Bytes& publicKey) {
  auto pk = parse(publicKey);
  if (!pk) return std::nullopt;
  secp256k1_xonly_pubkey internal;
  if (secp256k1_xonly_pubkey_from_pubkey(ctx(), &internal, nullptr, &*pk) != 1) return std::nullopt;
  uint8_t x[32];
  secp256k1_xonly_pubkey_serialize(ctx(), x, &internal);
  // BIP-86: t = tagged_hash("TapTweak", P) with no script tree; Q = P + t*G.
  static const char kTag[] = "TapTweak";
  uint8_t tweak[32];
  if (secp256k1_tagged_sha256(ctx(), tweak, reinterpret_cast<const unsigned char*>(kTag),
                              sizeof kTag - 1, x, 32) != 1)
    return std::nullopt;
  secp256k1_pubkey output;
  secp256k1_xonly_pubkey outputX;
  if (secp256k1_xonly_pubkey_tweak_add(ctx(), &output, &internal, tweak) != 1 ||
      secp256k1_xonly_pubkey_from_pubkey(ctx(), &outputX, nullptr, &output) != 1)
    return std::nullopt;
  Bytes out(32);
  secp256k1_xonly_pubkey_serialize(ctx(), out.data(), &outputX);
  return out;
}

namespace {
// BIP-340 over a keypair (wiped afterwards), with fresh auxiliary randomness.
Bytes schnorrSign(secp256k1_keypair& keypair, const Digest& message) {
  uint8_t aux[32];
  randomBytes(aux, sizeof aux);
  Bytes sig(64);
  int ok = secp256k1_schnorrsig_sign32(ctx(), sig.data(), message.data(), &keypair, aux);
  wipe(&keypair, sizeof keypair);
  if (ok != 1) throw std::runtime_error("Schnorr signing failed");
  return sig;
}

secp256k1_keypair keypairOf(const SecretBytes& priv) {
  secp256k1_keypair keypair;
  if (!isValidScalar(priv) || secp256k1_keypair_create(ctx(), &keypair, priv.data()) != 1)
    throw std::invalid_argument("not a secp256k1 private key");
  return keypair;
}
}  // namespace

Bytes signTaprootKeyPath(const SecretBytes& priv, const Digest& message) {
  secp256k1_keypair keypair = keypairOf(priv);
  secp256k1_xonly_pubkey internal;
  if (secp256k1_keypair_xonly_pub(ctx(), &internal, nullptr, &keypair) != 1)
    throw std::runtime_error("Taproot internal key failed");
  uint8_t x[32], tweak[32];
  secp256k1_xonly_pubkey_serialize(ctx(), x, &internal);
  static const char kTag[] = "TapTweak";
  if (secp256k1_tagged_sha256(ctx(), tweak, reinterpret_cast<const unsigned char*>(kTag),
                              sizeof kTag - 1, x, 32) != 1 ||
      secp256k1_keypair_xonly_tweak_add(ctx(), &keypair, tweak) != 1)
    throw std::runtime_error("Taproot key tweak failed");
  return schnorrSign(keypair, message);
}

Bytes signSchnorr(const SecretBytes& priv, const Digest& message) {
  secp256k1_keypair keypair = keypairOf(priv);
  return schnorrSign(keypair, message);
}

bool verifySchnorr(const Bytes& xonly, const Digest& message, const Bytes& sig) {
  secp256k1_xonly_pubkey pk;
  if (xonly.size() != 32 || sig.size() != 64 ||
      secp256k1_xonly_pubkey_parse(ctx(), &pk, xonly.data()) != 1)
    return false;
  return secp256k1_schnorrsig_verify(ctx(), sig.data(), message.data(), 32, &pk) == 1;
}

namespace {
// libsecp256k1's in-place scalar operations, applied to a copy of `a` that is wiped when the
// operation refuses (an input out of range, or a zero result).
template <typename Op>
std::optional<SecretBytes> onCopy(const SecretBytes& a, Op op) {
  if (!isValidScalar(a)) return std::nullopt;
  Bytes out = a.bytes();
  if (op(out.data()) != 1) {
    wipe(out.data(), out.size());
    return std::nullopt;
  }
  return SecretBytes(std::move(out));
}
}  // namespace

std::optional<SecretBytes> addScalars(const SecretBytes& a, const SecretBytes& b) {
  if (!isValidScalar(b)) return std::nullopt;
  return onCopy(a, [&](uint8_t* x) { return secp256k1_ec_seckey_tweak_add(ctx(), x, b.data()); });
}

std::optional<SecretBytes> mulScalars(const SecretBytes& a, const SecretBytes& b) {
  if (!isValidScalar(b)) return std::nullopt;
  return onCopy(a, [&](uint8_t* x) { return secp256k1_ec_seckey_tweak_mul(ctx(), x, b.data()); });
}

std::optional<SecretBytes> negateScalar(const SecretBytes& a) {
  return onCopy(a, [](uint8_t* x) { return secp256k1_ec_seckey_negate(ctx(), x); });
}

std::optional<Bytes> sharedPoint(const SecretBytes& priv, const Bytes& peer) {
  auto pk = parse(peer);
  if (!pk || !isValidScalar(priv) || secp256k1_ec_pubkey_tweak_mul(ctx(), &*pk, priv.data()) != 1)
    return std::nullopt;
  return serialize(*pk, false);
}

}  // namespace signet::crypto::k1
