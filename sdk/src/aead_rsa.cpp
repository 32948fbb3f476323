// AES-256-GCM (the keyring, HPKE) and RSA PKCS#1 v1.5 verification (WebAuthn RS256).
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>
#include <stdexcept>

#include "signet/crypto.hpp"

namespace signet::crypto {

namespace {
struct Free {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  void operator()(OSSL_PARAM_BLD* b) const { OSSL_PARAM_BLD_free(b); }
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
  void operator()(BIGNUM* b) const { BN_free(b); }
};
template <class T>
using Ptr = std::unique_ptr<T, Free>;
constexpr size_t kTagSize = 16;

bool goodNonce(const Bytes& nonce) {
  return nonce.size() == 12 || nonce.size() == 16;
}
bool setNonceLength(EVP_CIPHER_CTX* ctx, const Bytes& nonce) {
  return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce.size()),
                             nullptr) == 1;
}
}  // namespace

Bytes aesGcmSeal(const SecretBytes& key, const Bytes& nonce, const uint8_t* plaintext, size_t size,
                 const Bytes& aad) {
  if (key.size() != 32 || !goodNonce(nonce)) throw std::invalid_argument("AES-256-GCM sizes");
  Ptr<EVP_CIPHER_CTX> ctx(EVP_CIPHER_CTX_new());
  Bytes out(size + kTagSize);
  int len = 0, total = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      !setNonceLength(ctx.get(), nonce) ||
      EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data()) != 1 ||
      (!aad.empty() && EVP_EncryptUpdate(ctx.get(), nullptr, &len, aad.data(),
                                         static_cast<int>(aad.size())) != 1) ||
      EVP_EncryptUpdate(ctx.get(), out.data(), &len, plaintext, static_cast<int>(size)) != 1)
    throw std::runtime_error("AES-GCM encryption failed");
  total = len;
  if (EVP_EncryptFinal_ex(ctx.get(), out.data() + total, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, out.data() + size) != 1)
    throw std::runtime_error("AES-GCM encryption failed");
  return out;
}

std::optional<SecretBytes> aesGcmOpen(const SecretBytes& key, const Bytes& nonce,
                                      const Bytes& sealed, const Bytes& aad) {
  if (key.size() != 32 || !goodNonce(nonce) || sealed.size() < kTagSize) return std::nullopt;
  size_t size = sealed.size() - kTagSize;
  Ptr<EVP_CIPHER_CTX> ctx(EVP_CIPHER_CTX_new());
  Bytes out(size);
  int len = 0;
  Bytes tag(sealed.end() - kTagSize, sealed.end());
  bool ok =
      ctx && EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
      setNonceLength(ctx.get(), nonce) &&
      EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data()) == 1 &&
      (aad.empty() || EVP_DecryptUpdate(ctx.get(), nullptr, &len, aad.data(),
                                        static_cast<int>(aad.size())) == 1) &&
      EVP_DecryptUpdate(ctx.get(), out.data(), &len, sealed.data(), static_cast<int>(size)) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), out.data() + len, &len) == 1;
  if (!ok) {
    wipe(out.data(), out.size());
    return std::nullopt;
  }
  return SecretBytes(std::move(out));
}

bool verifyRsaSha256(const Bytes& modulus, const Bytes& exponent, const uint8_t* msg, size_t size,
                     const Bytes& sig) {
  if (modulus.size() < 256 || exponent.empty()) return false;  // 2048 bits at least
  Ptr<BIGNUM> n(BN_bin2bn(modulus.data(), static_cast<int>(modulus.size()), nullptr));
  Ptr<BIGNUM> e(BN_bin2bn(exponent.data(), static_cast<int>(exponent.size()), nullptr));
  Ptr<OSSL_PARAM_BLD> bld(OSSL_PARAM_BLD_new());
  if (!n || !e || !bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, e.get()) != 1)
    return false;
  Ptr<OSSL_PARAM> params(OSSL_PARAM_BLD_to_param(bld.get()));
  Ptr<EVP_PKEY_CTX> kctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !kctx || EVP_PKEY_fromdata_init(kctx.get()) != 1 ||
      EVP_PKEY_fromdata(kctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
    return false;
  Ptr<EVP_PKEY> key(raw);
  Ptr<EVP_MD_CTX> md(EVP_MD_CTX_new());
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1)
    return false;
  return EVP_DigestVerify(md.get(), sig.data(), sig.size(), msg, size) == 1;
}

}  // namespace signet::crypto
