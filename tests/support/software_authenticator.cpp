#include "software_authenticator.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <stdexcept>

#include "auth/webauthn.hpp"
#include "signet/json.hpp"

namespace signet::test {

struct SoftwareAuthenticator::Key {
  crypto::SecretBytes p256;
  EVP_PKEY* rsa = nullptr;
  ~Key() { EVP_PKEY_free(rsa); }
};

SoftwareAuthenticator::SoftwareAuthenticator(Algorithm alg, std::string rpId)
    : alg_(alg), rpId_(std::move(rpId)), key_(std::make_unique<Key>()) {
  credentialId_ = base64UrlEncode(crypto::randomBytes(16));
  if (alg_ == Algorithm::kEs256)
    key_->p256 = crypto::generatePrivateKey(crypto::Curve::kP256);
  else
    key_->rsa = EVP_RSA_gen(2048);
}

SoftwareAuthenticator::~SoftwareAuthenticator() = default;

std::pair<std::string, std::string> SoftwareAuthenticator::stamp(std::string_view body) {
  auto rpHash = crypto::sha256(rpId_);
  Bytes authData(rpHash.begin(), rpHash.end());
  authData.push_back(0x05);  // user present, user verified
  for (int shift : {24, 16, 8, 0}) authData.push_back(static_cast<uint8_t>(counter >> shift));
  std::string challenge = webauthnChallenge(challengeBodyOverride ? *challengeBodyOverride : body);
  std::string clientData = "{\"type\":\"webauthn.get\",\"challenge\":\"" + challenge +
                           "\",\"origin\":\"https://" + rpId_ + "\",\"crossOrigin\":false}";
  Bytes signedBytes = authData;
  auto clientHash = crypto::sha256(clientData);
  signedBytes.insert(signedBytes.end(), clientHash.begin(), clientHash.end());
  Bytes signature;
  if (alg_ == Algorithm::kEs256) {
    signature = crypto::encodeDerSignature(
        crypto::signEcdsa(crypto::Curve::kP256, key_->p256, crypto::sha256(signedBytes)));
  } else {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key_->rsa);
    EVP_DigestSign(ctx, nullptr, &len, signedBytes.data(), signedBytes.size());
    signature.resize(len);
    EVP_DigestSign(ctx, signature.data(), &len, signedBytes.data(), signedBytes.size());
    EVP_MD_CTX_free(ctx);
  }
  json::Object header = json::object();
  header->set("authenticatorData", base64UrlEncode(authData));
  header->set("clientDataJson", base64UrlEncode(clientData));
  header->set("credentialId", credentialId_);
  header->set("signature", base64UrlEncode(signature));
  return {"X-Stamp-WebAuthn", json::stringify(header)};
}

AuthenticatorRecord SoftwareAuthenticator::record(const std::string& organizationId,
                                                  const std::string& userId) const {
  AuthenticatorRecord a;
  a.id = crypto::uuidV4();
  a.organizationId = organizationId;
  a.userId = userId;
  a.name = "software authenticator";
  a.credentialId = credentialId_;
  a.aaguid = "00000000-0000-0000-0000-000000000000";
  a.transports = {"AUTHENTICATOR_TRANSPORT_INTERNAL"};
  if (alg_ == Algorithm::kEs256) {
    a.algorithm = -7;
    a.publicKey = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, key_->p256));
  } else {
    a.algorithm = -257;
    BIGNUM *n = nullptr, *e = nullptr;
    EVP_PKEY_get_bn_param(key_->rsa, OSSL_PKEY_PARAM_RSA_N, &n);
    EVP_PKEY_get_bn_param(key_->rsa, OSSL_PKEY_PARAM_RSA_E, &e);
    Bytes nb(BN_num_bytes(n)), eb(BN_num_bytes(e));
    BN_bn2bin(n, nb.data());
    BN_bn2bin(e, eb.data());
    BN_free(n);
    BN_free(e);
    a.publicKey = toHex(nb);
    a.rsaExponent = toHex(eb);
  }
  return a;
}

}  // namespace signet::test
