#include "software_authenticator.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <cbor.h>

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
  ++counter;  // as a real authenticator does after each assertion
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

json::Object SoftwareAuthenticator::registration(const std::string& name,
                                                 const std::string& challenge) const {
  AuthenticatorRecord key = record("", "");
  // COSE key: EC2 P-256 (kty 2, alg -7, crv 1, x, y) or RSA (kty 3, alg -257, n, e).
  cbor_item_t* cose = cbor_new_definite_map(5);
  auto put = [](cbor_item_t* map, cbor_item_t* k, cbor_item_t* v) {
    cbor_map_add(map, cbor_pair{cbor_move(k), cbor_move(v)});
  };
  auto label = [](int v) {
    return v >= 0 ? cbor_build_uint8(static_cast<uint8_t>(v))
                  : cbor_build_negint16(static_cast<uint16_t>(-1 - v));
  };
  auto bytes = [](const Bytes& b) { return cbor_build_bytestring(b.data(), b.size()); };
  if (alg_ == Algorithm::kEs256) {
    Bytes point = crypto::uncompressPublicKey(crypto::Curve::kP256, *fromHex(key.publicKey));
    put(cose, label(1), label(2));
    put(cose, label(3), label(-7));
    put(cose, label(-1), label(1));
    put(cose, label(-2), bytes(Bytes(point.begin() + 1, point.begin() + 33)));
    put(cose, label(-3), bytes(Bytes(point.begin() + 33, point.end())));
  } else {
    put(cose, label(1), label(3));
    put(cose, label(3), label(-257));
    put(cose, label(-1), bytes(*fromHex(key.publicKey)));
    put(cose, label(-2), bytes(*fromHex(*key.rsaExponent)));
  }
  unsigned char* coseBuf = nullptr;
  size_t coseSize = 0;
  cbor_serialize_alloc(cose, &coseBuf, &coseSize);
  cbor_decref(&cose);

  auto rpHash = crypto::sha256(rpId_);
  Bytes authData(rpHash.begin(), rpHash.end());
  authData.push_back(0x45);  // user present, user verified, attested credential data
  authData.insert(authData.end(), {0, 0, 0, 0});  // sign counter
  authData.insert(authData.end(), 16, 0x11);      // aaguid
  Bytes rawId = *base64Decode(credentialId_);
  authData.push_back(static_cast<uint8_t>(rawId.size() >> 8));
  authData.push_back(static_cast<uint8_t>(rawId.size()));
  authData.insert(authData.end(), rawId.begin(), rawId.end());
  authData.insert(authData.end(), coseBuf, coseBuf + coseSize);
  free(coseBuf);

  cbor_item_t* object = cbor_new_definite_map(3);
  cbor_map_add(
      object, cbor_pair{cbor_move(cbor_build_string("fmt")), cbor_move(cbor_build_string("none"))});
  cbor_map_add(object, cbor_pair{cbor_move(cbor_build_string("attStmt")),
                                 cbor_move(cbor_new_definite_map(0))});
  cbor_map_add(object,
               cbor_pair{cbor_move(cbor_build_string("authData")),
                         cbor_move(cbor_build_bytestring(authData.data(), authData.size()))});
  unsigned char* objBuf = nullptr;
  size_t objSize = 0;
  cbor_serialize_alloc(object, &objBuf, &objSize);
  cbor_decref(&object);
  Bytes attestationObject(objBuf, objBuf + objSize);
  free(objBuf);

  std::string clientData = "{\"type\":\"webauthn.create\",\"challenge\":\"" + challenge +
                           "\",\"origin\":\"https://" + rpId_ + "\"}";
  json::Object attestation = json::object();
  attestation->set("credentialId", credentialId_);
  attestation->set("clientDataJson", base64UrlEncode(clientData));
  attestation->set("attestationObject", base64UrlEncode(attestationObject));
  attestation->set("transports", json::stringArray({"AUTHENTICATOR_TRANSPORT_INTERNAL"}));
  json::Object params = json::object();
  params->set("authenticatorName", name);
  params->set("challenge", challenge);
  params->set("attestation", attestation);
  return params;
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
