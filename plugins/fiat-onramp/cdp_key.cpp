#include "cdp_key.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "signet/encoding.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {
// The P-256 scalar of a PEM private key (SEC1 "EC PRIVATE KEY" or PKCS#8), or nullopt.
std::optional<crypto::SecretBytes> p256FromPem(const crypto::SecretBytes& text) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), BIO_free);
  if (!bio) return std::nullopt;
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  if (!key || !EVP_PKEY_is_a(key.get(), "EC")) return std::nullopt;
  char group[32] = {};
  size_t groupLength = 0;
  if (EVP_PKEY_get_utf8_string_param(key.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                     &groupLength) != 1 ||
      std::string(group) != "prime256v1")
    return std::nullopt;
  BIGNUM* scalar = nullptr;
  if (EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_PRIV_KEY, &scalar) != 1) return std::nullopt;
  Bytes out(32);
  int written = BN_bn2binpad(scalar, out.data(), 32);
  BN_clear_free(scalar);
  if (written != 32) return std::nullopt;
  return crypto::SecretBytes(std::move(out));
}

std::string text(const crypto::SecretBytes& s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}
}  // namespace

CdpKey CdpKey::parse(const crypto::SecretBytes& given, const std::string& field) {
  if (text(given).find("-----BEGIN") != std::string::npos) {
    auto scalar = p256FromPem(given);
    if (!scalar || !crypto::isValidPrivateKey(crypto::Curve::kP256, *scalar))
      throw invalidArgument("invalid field " + field + ": the PEM is not an EC P-256 private key");
    return CdpKey(crypto::Curve::kP256, std::move(*scalar));
  }
  auto raw = base64Decode(text(given));
  if (!raw || raw->size() != 64)
    throw invalidArgument("invalid field " + field +
                          ": neither an EC P-256 PEM nor an Ed25519 key in base64 (64 bytes)");
  Bytes seed(raw->begin(), raw->begin() + 32);
  Bytes publicKey(raw->begin() + 32, raw->end());
  std::fill(raw->begin(), raw->end(), 0);
  crypto::SecretBytes key(std::move(seed));
  if (crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, key) != publicKey)
    throw invalidArgument("invalid field " + field +
                          ": the Ed25519 key's public half does not match its seed");
  return CdpKey(crypto::Curve::kEd25519, std::move(key));
}

std::string CdpKey::jwt(const std::string& keyId, const std::string& method, const std::string& url,
                        int64_t nowSeconds) const {
  std::string hostAndPath = url.substr(url.find("://") + 3);
  json::Object header = json::object();
  header->set("alg", curve_ == crypto::Curve::kP256 ? "ES256" : "EdDSA");
  header->set("kid", keyId);
  header->set("typ", "JWT");
  header->set("nonce", toHex(crypto::randomBytes(16)));
  // The claims @coinbase/cdp-sdk's generateJwt sets (its `uris` list, where older examples had
  // a single `uri`); tests/conformance/onramp.test.mjs compares the two.
  json::Object claims = json::object();
  claims->set("sub", keyId);
  claims->set("iss", "cdp");
  claims->set("uris", json::stringArray({method + " " + hostAndPath}));
  claims->set("iat", nowSeconds);
  claims->set("nbf", nowSeconds);
  claims->set("exp", nowSeconds + 120);
  std::string signingInput =
      base64UrlEncode(json::stringify(header)) + "." + base64UrlEncode(json::stringify(claims));
  Bytes signature;
  if (curve_ == crypto::Curve::kP256) {
    auto sig = crypto::signEcdsa(curve_, key_, crypto::sha256(signingInput));
    signature.assign(sig.r.begin(), sig.r.end());
    signature.insert(signature.end(), sig.s.begin(), sig.s.end());
  } else {
    signature = crypto::signEd25519(key_, reinterpret_cast<const uint8_t*>(signingInput.data()),
                                    signingInput.size());
  }
  return signingInput + "." + base64UrlEncode(signature);
}

}  // namespace fiat_onramp
