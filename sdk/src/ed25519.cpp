// Ed25519 through OpenSSL's EVP raw-key interface, plus the point-decoding check OpenSSL does
// not make at import time (so that a registered key is known to be a curve point).
#include <openssl/bn.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

#include "ed25519.hpp"

namespace signet::crypto::ed25519 {

namespace {
struct Free {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  void operator()(BIGNUM* b) const { BN_free(b); }
  void operator()(BN_CTX* c) const { BN_CTX_free(c); }
};
template <class T>
using Ptr = std::unique_ptr<T, Free>;
}  // namespace

// RFC 8032 §5.1.3: y < p and (y^2 - 1) / (d y^2 + 1) is a square; x = 0 with the sign bit
// set is not a valid encoding.
bool isValidPoint(const Bytes& pub) {
  if (pub.size() != 32) return false;
  uint8_t be[32];
  for (int i = 0; i < 32; ++i) be[i] = pub[31 - i];
  bool sign = be[0] & 0x80;
  be[0] &= 0x7f;
  Ptr<BN_CTX> bn(BN_CTX_new());
  Ptr<BIGNUM> p(BN_new()), y(BN_bin2bn(be, 32, nullptr)), d(BN_new()), t(BN_new()), u(BN_new()),
      v(BN_new()), x2(BN_new());
  BN_set_bit(p.get(), 255);
  BN_sub_word(p.get(), 19);
  if (BN_cmp(y.get(), p.get()) >= 0) return false;
  // d = -121665 / 121666 mod p
  Ptr<BIGNUM> num(BN_new()), den(BN_new());
  BN_set_word(num.get(), 121665);
  BN_sub(num.get(), p.get(), num.get());
  BN_set_word(den.get(), 121666);
  BN_mod_inverse(den.get(), den.get(), p.get(), bn.get());
  BN_mod_mul(d.get(), num.get(), den.get(), p.get(), bn.get());
  BN_mod_sqr(t.get(), y.get(), p.get(), bn.get());
  BN_copy(u.get(), t.get());
  Ptr<BIGNUM> one(BN_new());
  BN_one(one.get());
  BN_mod_sub(u.get(), u.get(), one.get(), p.get(), bn.get());
  BN_mod_mul(v.get(), d.get(), t.get(), p.get(), bn.get());
  BN_mod_add(v.get(), v.get(), one.get(), p.get(), bn.get());
  if (!BN_mod_inverse(v.get(), v.get(), p.get(), bn.get())) return false;
  BN_mod_mul(x2.get(), u.get(), v.get(), p.get(), bn.get());
  if (BN_is_zero(x2.get())) return !sign;
  Ptr<BIGNUM> root(BN_mod_sqrt(nullptr, x2.get(), p.get(), bn.get()));
  return root != nullptr;
}

bool verify(const Bytes& pub, const uint8_t* msg, size_t size, const Bytes& sig) {
  if (sig.size() != 64 || !isValidPoint(pub)) return false;
  Ptr<EVP_PKEY> key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub.data(), 32));
  Ptr<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
    return false;
  return EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), msg, size) == 1;
}

static Ptr<EVP_PKEY> privateKey(const SecretBytes& seed) {
  if (seed.size() != 32) throw std::invalid_argument("an Ed25519 seed is 32 bytes");
  Ptr<EVP_PKEY> key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), 32));
  if (!key) throw std::runtime_error("Ed25519 key import failed");
  return key;
}

Bytes publicKey(const SecretBytes& seed) {
  auto key = privateKey(seed);
  Bytes out(32);
  size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), out.data(), &len) != 1 || len != 32)
    throw std::runtime_error("Ed25519 public key derivation failed");
  return out;
}

Bytes sign(const SecretBytes& seed, const uint8_t* msg, size_t size) {
  auto key = privateKey(seed);
  Ptr<EVP_MD_CTX> ctx(EVP_MD_CTX_new());
  Bytes out(64);
  size_t len = out.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), out.data(), &len, msg, size) != 1)
    throw std::runtime_error("Ed25519 signing failed");
  return out;
}

}  // namespace signet::crypto::ed25519
