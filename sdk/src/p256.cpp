// P-256 through OpenSSL's EC_KEY interface: it is deprecated in 3.0 but is the direct path to
// ECDSA over a precomputed digest and to SEC1 point compression, and it performs the same.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "p256.hpp"

namespace signet::crypto::p256 {

namespace {
struct Free {
  void operator()(EC_KEY* k) const { EC_KEY_free(k); }
  void operator()(EC_POINT* p) const { EC_POINT_free(p); }
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
  void operator()(BIGNUM* b) const { BN_clear_free(b); }
};
template <class T>
using Ptr = std::unique_ptr<T, Free>;

const EC_GROUP* group() {
  static const EC_GROUP* g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  return g;
}

Ptr<EC_POINT> decodePoint(const Bytes& encoded) {
  Ptr<EC_POINT> p(EC_POINT_new(group()));
  if (!p || EC_POINT_oct2point(group(), p.get(), encoded.data(), encoded.size(), nullptr) != 1)
    return nullptr;
  if (EC_POINT_is_at_infinity(group(), p.get()) ||
      EC_POINT_is_on_curve(group(), p.get(), nullptr) != 1)
    return nullptr;
  return p;
}

Bytes encodePoint(const EC_POINT* p, point_conversion_form_t form) {
  Bytes out(form == POINT_CONVERSION_COMPRESSED ? 33 : 65);
  if (EC_POINT_point2oct(group(), p, form, out.data(), out.size(), nullptr) != out.size())
    throw std::runtime_error("P-256 point encoding failed");
  return out;
}

// A public key decoded once. Decompressing a point (a modular square root) and building its
// EC_KEY cost about as much as the verification itself, and a gateway sees the same few API
// keys again and again. Public keys only: nothing secret is kept. Shared read-only between
// threads, which OpenSSL allows for verification.
struct DecodedKey {
  Ptr<EC_KEY> key;
  Bytes compressed;
};

std::shared_ptr<const DecodedKey> decodeKey(const Bytes& encoded) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const DecodedKey>> cache;
  constexpr size_t kMaxKeys = 4096;  // then the cache starts again: bounded, whatever is sent
  std::string id(encoded.begin(), encoded.end());
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(id); it != cache.end()) return it->second;
  }
  auto point = decodePoint(encoded);
  if (!point) return nullptr;
  auto decoded = std::make_shared<DecodedKey>();
  decoded->key.reset(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  if (!decoded->key || EC_KEY_set_public_key(decoded->key.get(), point.get()) != 1) return nullptr;
  decoded->compressed = encodePoint(point.get(), POINT_CONVERSION_COMPRESSED);
  std::lock_guard lock(mutex);
  if (cache.size() >= kMaxKeys) cache.clear();
  cache.emplace(std::move(id), decoded);
  return decoded;
}

Ptr<EC_POINT> publicPoint(const SecretBytes& priv) {
  Ptr<BIGNUM> d(BN_bin2bn(priv.data(), static_cast<int>(priv.size()), nullptr));
  Ptr<EC_POINT> p(EC_POINT_new(group()));
  if (!d || !p || EC_POINT_mul(group(), p.get(), d.get(), nullptr, nullptr, nullptr) != 1)
    throw std::runtime_error("P-256 public key derivation failed");
  return p;
}
}  // namespace

std::optional<Bytes> normalize(const Bytes& encoded) {
  if (encoded.size() != 33 && encoded.size() != 65) return std::nullopt;
  auto decoded = decodeKey(encoded);
  if (!decoded) return std::nullopt;
  return decoded->compressed;
}

Bytes uncompress(const Bytes& encoded) {
  auto p = decodePoint(encoded);
  if (!p) throw std::invalid_argument("not a P-256 point");
  return encodePoint(p.get(), POINT_CONVERSION_UNCOMPRESSED);
}

bool verify(const Bytes& publicKey, const Digest& digest, const EcdsaSignature& sig) {
  if (publicKey.size() != 33 && publicKey.size() != 65) return false;
  auto decoded = decodeKey(publicKey);
  if (!decoded) return false;
  Ptr<ECDSA_SIG> s(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(sig.r.data(), 32, nullptr);
  BIGNUM* sv = BN_bin2bn(sig.s.data(), 32, nullptr);
  if (!s || !r || !sv || ECDSA_SIG_set0(s.get(), r, sv) != 1) {
    BN_free(r);
    BN_free(sv);
    return false;
  }
  return ECDSA_do_verify(digest.data(), 32, s.get(), decoded->key.get()) == 1;
}

bool isValidScalar(const SecretBytes& priv) {
  if (priv.size() != 32) return false;
  Ptr<BIGNUM> d(BN_bin2bn(priv.data(), 32, nullptr));
  return d && !BN_is_zero(d.get()) && BN_cmp(d.get(), EC_GROUP_get0_order(group())) < 0;
}

Bytes publicKey(const SecretBytes& priv) {
  return encodePoint(publicPoint(priv).get(), POINT_CONVERSION_COMPRESSED);
}

EcdsaSignature sign(const SecretBytes& priv, const Digest& digest) {
  if (!isValidScalar(priv)) throw std::invalid_argument("not a P-256 private key");
  Ptr<EC_KEY> key(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  Ptr<BIGNUM> d(BN_bin2bn(priv.data(), 32, nullptr));
  auto pub = publicPoint(priv);
  if (!key || EC_KEY_set_private_key(key.get(), d.get()) != 1 ||
      EC_KEY_set_public_key(key.get(), pub.get()) != 1)
    throw std::runtime_error("P-256 key setup failed");
  Ptr<ECDSA_SIG> s(ECDSA_do_sign(digest.data(), 32, key.get()));
  if (!s) throw std::runtime_error("P-256 signing failed");
  const BIGNUM *r, *sv;
  ECDSA_SIG_get0(s.get(), &r, &sv);
  // Normalize to low S so that every verifier, strict or not, accepts what we emit.
  Ptr<BIGNUM> sLow(BN_dup(sv));
  Ptr<BIGNUM> half(BN_dup(EC_GROUP_get0_order(group())));
  BN_rshift1(half.get(), half.get());
  if (BN_cmp(sLow.get(), half.get()) > 0)
    BN_sub(sLow.get(), EC_GROUP_get0_order(group()), sLow.get());
  EcdsaSignature out;
  BN_bn2binpad(r, out.r.data(), 32);
  BN_bn2binpad(sLow.get(), out.s.data(), 32);
  return out;
}

std::optional<SecretBytes> addScalars(const SecretBytes& a, const SecretBytes& b) {
  Ptr<BIGNUM> x(BN_bin2bn(a.data(), static_cast<int>(a.size()), nullptr));
  Ptr<BIGNUM> y(BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr));
  Ptr<BIGNUM> sum(BN_new());
  BN_CTX* ctx = BN_CTX_new();
  bool ok = x && y && sum && ctx &&
            BN_mod_add(sum.get(), x.get(), y.get(), EC_GROUP_get0_order(group()), ctx) == 1;
  BN_CTX_free(ctx);
  if (!ok) throw std::runtime_error("P-256 scalar addition failed");
  if (BN_is_zero(sum.get())) return std::nullopt;
  Bytes out(32);
  BN_bn2binpad(sum.get(), out.data(), 32);
  return SecretBytes(std::move(out));
}

std::optional<SecretBytes> ecdh(const SecretBytes& priv, const Bytes& peerPublic) {
  auto peer = decodePoint(peerPublic);
  if (!peer || !isValidScalar(priv)) return std::nullopt;
  Ptr<BIGNUM> d(BN_bin2bn(priv.data(), 32, nullptr));
  Ptr<EC_POINT> shared(EC_POINT_new(group()));
  if (!d || !shared ||
      EC_POINT_mul(group(), shared.get(), nullptr, peer.get(), d.get(), nullptr) != 1)
    throw std::runtime_error("P-256 ECDH failed");
  Bytes encoded = encodePoint(shared.get(), POINT_CONVERSION_UNCOMPRESSED);
  SecretBytes x(Bytes(encoded.begin() + 1, encoded.begin() + 33));
  wipe(encoded.data(), encoded.size());
  return x;
}

}  // namespace signet::crypto::p256
