// The cryptography every part of Signet shares. P-256, Ed25519, AES-GCM and RSA go through
// OpenSSL 3; secp256k1 through libsecp256k1 (ten times faster than OpenSSL's, and it returns
// the recovery id); keccak-256 is our own (OpenSSL 3.0 has none).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "signet/encoding.hpp"

namespace signet::crypto {

using Digest = std::array<uint8_t, 32>;

Digest sha256(const uint8_t* data, size_t size);
inline Digest sha256(std::string_view s) {
  return sha256(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
inline Digest sha256(const Bytes& b) {
  return sha256(b.data(), b.size());
}
Digest keccak256(const uint8_t* data, size_t size);
inline Digest keccak256(std::string_view s) {
  return keccak256(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
inline std::string toHex(const Digest& d) {
  return signet::toHex(d.data(), d.size());
}

// HMAC over SHA-256 / SHA-512 (HKDF for HPKE; BIP-32 and SLIP-10 use SHA-512).
Digest hmacSha256(const Bytes& key, const uint8_t* data, size_t size);
std::array<uint8_t, 64> hmacSha512(const Bytes& key, const uint8_t* data, size_t size);

// Hashes addresses are made of: RIPEMD-160(SHA-256(x)) (Bitcoin's hash160), SHA3-256 (Aptos)
// and BLAKE2b-256 (Sui; our own, since OpenSSL 3.0 fixes BLAKE2b at 512 bits).
std::array<uint8_t, 20> hash160(const uint8_t* data, size_t size);
Digest sha3_256(const uint8_t* data, size_t size);
Digest blake2b256(const uint8_t* data, size_t size);

void randomBytes(uint8_t* out, size_t size);
Bytes randomBytes(size_t size);
// Whether two secrets are equal, in a time that depends on their length only.
bool constantTimeEquals(std::string_view a, std::string_view b);
std::string uuidV4();
// A time-ordered UUID (RFC 9562, version 7): the Unix time in milliseconds, then 74 random
// bits. Ids made one after another sort one after another, so an index over them grows at its
// end, where the pages are already in memory and a commit shares them, instead of rewriting a
// random page for every insert. It shows when the id was made: use it for records that carry
// their creation time anyway (activities, their votes and evaluations), never as a secret.
std::string uuidV7(int64_t unixMs);

// Overwrites memory in a way the optimizer cannot drop.
void wipe(void* data, size_t size);

// Wipes a buffer (std::string, Bytes) that holds a secret when its scope ends, however it ends:
// for the text forms (hex, mnemonics) and scratch buffers that APIs hand out by value. Declare
// it on the line after the buffer, so that nothing that throws comes between them.
template <class Buffer>
class WipeOnExit {
 public:
  explicit WipeOnExit(Buffer& buffer) : buffer_(buffer) {}
  ~WipeOnExit() { wipe(buffer_.data(), buffer_.size()); }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  Buffer& buffer_;
};

// Bytes that are wiped when they go out of scope: private keys, mnemonics, master keys.
class SecretBytes {
 public:
  SecretBytes() = default;
  explicit SecretBytes(Bytes b) : bytes_(std::move(b)) {}
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  SecretBytes(SecretBytes&& o) noexcept : bytes_(std::move(o.bytes_)) { o.bytes_.clear(); }
  SecretBytes& operator=(SecretBytes&& o) noexcept {
    if (this != &o) {
      clear();
      bytes_ = std::move(o.bytes_);
      o.bytes_.clear();
    }
    return *this;
  }
  ~SecretBytes() { clear(); }
  void clear() {
    wipe(bytes_.data(), bytes_.size());
    bytes_.clear();
  }
  const Bytes& bytes() const { return bytes_; }
  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }

 private:
  Bytes bytes_;
};

enum class Curve { kP256, kSecp256k1, kEd25519 };
const char* curveName(Curve c);

// The canonical form Signet stores: 33-byte SEC1 compressed for P-256 and secp256k1 (from a
// compressed or uncompressed input), 32 bytes for Ed25519. nullopt when the bytes are not a
// point on the curve.
std::optional<Bytes> normalizePublicKey(Curve curve, const Bytes& encoded);
// 65-byte uncompressed form of a valid P-256 or secp256k1 key.
Bytes uncompressPublicKey(Curve curve, const Bytes& encoded);

struct EcdsaSignature {
  std::array<uint8_t, 32> r{};
  std::array<uint8_t, 32> s{};
};
// Parses DER leniently: non-minimal INTEGERs (a leading 00 before a byte without its top bit)
// are accepted, because the EIP-191 wallet stamper produces them.
std::optional<EcdsaSignature> parseDerSignature(const Bytes& der);
Bytes encodeDerSignature(const EcdsaSignature& sig);

// ECDSA verification over a 32-byte digest. High-S signatures are accepted: Node, WebCrypto
// and Go do not normalize S.
bool verifyEcdsa(Curve curve, const Bytes& publicKey, const Digest& digest,
                 const EcdsaSignature& sig);
bool verifyEd25519(const Bytes& publicKey, const uint8_t* msg, size_t size, const Bytes& sig);
// RSASSA-PKCS1-v1_5 with SHA-256 (WebAuthn RS256), key given by modulus and exponent.
bool verifyRsaSha256(const Bytes& modulus, const Bytes& exponent, const uint8_t* msg, size_t size,
                     const Bytes& sig);

struct RecoverableSignature {
  EcdsaSignature sig;
  int recoveryId = 0;
};
// Private keys are 32-byte scalars (Ed25519: the 32-byte seed).
SecretBytes generatePrivateKey(Curve curve);
// Whether 32 bytes are a usable private key: a scalar in [1, n) for the ECDSA curves.
bool isValidPrivateKey(Curve curve, const SecretBytes& priv);
Bytes publicKeyFromPrivate(Curve curve, const SecretBytes& priv);  // canonical form
// Low-S ECDSA. secp256k1 uses RFC 6979 nonces (libsecp256k1); P-256 a random k from
// OpenSSL's CSPRNG (OpenSSL 3.0 has no deterministic ECDSA).
EcdsaSignature signEcdsa(Curve curve, const SecretBytes& priv, const Digest& digest);
// Something that signs a digest with a key the caller never sees (the gateway signer).
using DigestSigner = std::function<EcdsaSignature(const Digest&)>;
RecoverableSignature signSecp256k1Recoverable(const SecretBytes& priv, const Digest& digest);
Bytes signEd25519(const SecretBytes& seed, const uint8_t* msg, size_t size);

// P-256 Diffie-Hellman: the x coordinate of priv * peer (RFC 9180 DHKEM's DH()). nullopt when
// `peerPublic` is not a point on the curve.
std::optional<SecretBytes> ecdhP256(const SecretBytes& priv, const Bytes& peerPublic);

// BIP-86 key-path-only Taproot output key of a secp256k1 public key: the 32-byte x-only
// Q = P + tagged_hash("TapTweak", x(P))·G. nullopt for a bad key.
std::optional<Bytes> taprootOutputKey(const Bytes& publicKey);

// BIP-340 Schnorr with the BIP-341 key-path tweak (no script tree): what a Taproot
// (P2TR) account signs with; it verifies under taprootOutputKey(P).
Bytes signTaprootKeyPath(const SecretBytes& priv, const Digest& message);
bool verifySchnorr(const Bytes& xonly, const Digest& message, const Bytes& sig);

// Plain BIP-340 Schnorr, verifying under the key's own x-only public key (no Taproot tweak):
// what Spark identity keys sign with.
Bytes signSchnorr(const SecretBytes& priv, const Digest& message);

// Scalar arithmetic mod n on secp256k1, for secret sharing (Spark's Feldman shares). nullopt
// when an input is not a scalar in [1, n) or the result is zero.
std::optional<SecretBytes> addScalarsSecp256k1(const SecretBytes& a, const SecretBytes& b);
std::optional<SecretBytes> mulScalarsSecp256k1(const SecretBytes& a, const SecretBytes& b);
std::optional<SecretBytes> negateScalarSecp256k1(const SecretBytes& a);
// The full shared point priv·peer, 65-byte uncompressed (ECIES as the Rust `ecies` crate does
// it hashes the whole point, not just x). nullopt for a bad key or point.
std::optional<Bytes> sharedPointSecp256k1(const SecretBytes& priv, const Bytes& peerPublic);

// HKDF-SHA256 (RFC 5869): Extract (an empty salt acts as HashLen zero bytes), Expand (at most
// 255 blocks), and the two in one. HPKE's labeled steps are these over labeled inputs.
SecretBytes hkdfExtract(const Bytes& salt, const Bytes& ikm);
SecretBytes hkdfExpand(const SecretBytes& prk, const Bytes& info, size_t length);
SecretBytes hkdfSha256(const Bytes& salt, const Bytes& ikm, const Bytes& info, size_t length);

// (a + b) mod n on P-256 (SLIP-10 child keys); nullopt when the sum is zero.
std::optional<SecretBytes> addScalarsP256(const SecretBytes& a, const SecretBytes& b);

// AES-256-GCM with a 12-byte nonce (or the 16-byte nonce of the Rust `ecies` crate); the
// output is ciphertext followed by the 16-byte tag.
Bytes aesGcmSeal(const SecretBytes& key, const Bytes& nonce, const uint8_t* plaintext, size_t size,
                 const Bytes& aad);
std::optional<SecretBytes> aesGcmOpen(const SecretBytes& key, const Bytes& nonce,
                                      const Bytes& sealed, const Bytes& aad);

}  // namespace signet::crypto
