#include "signet/bundles.hpp"

#include "signet/json.hpp"

namespace signet::bundles {

namespace {
const Bytes kInfo = toBytes("turnkey_hpke");

Bytes aad(const Bytes& encapped, const Bytes& receiver) {
  Bytes out = encapped;
  out.insert(out.end(), receiver.begin(), receiver.end());
  return out;
}
}  // namespace

hpke::Sealed seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size) {
  return hpke::seal(receiverPublic, plaintext, size, kInfo, aad);
}

std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const hpke::Sealed& sealed) {
  return hpke::open(receiverPrivate, sealed.encappedPublic, sealed.ciphertext, kInfo, aad);
}

std::string credentialBundle(const Bytes& receiverPublic, const crypto::SecretBytes& plaintext) {
  auto sealed = seal(receiverPublic, plaintext.data(), plaintext.size());
  Bytes payload = *crypto::normalizePublicKey(crypto::Curve::kP256, sealed.encappedPublic);
  payload.insert(payload.end(), sealed.ciphertext.begin(), sealed.ciphertext.end());
  return base58CheckEncode(payload);
}

std::optional<crypto::SecretBytes> openCredentialBundle(const crypto::SecretBytes& receiverPrivate,
                                                        const std::string& bundle) {
  auto payload = base58CheckDecode(bundle);
  if (!payload || payload->size() <= 33) return std::nullopt;
  Bytes compressed(payload->begin(), payload->begin() + 33);
  if (!crypto::normalizePublicKey(crypto::Curve::kP256, compressed)) return std::nullopt;
  hpke::Sealed sealed{crypto::uncompressPublicKey(crypto::Curve::kP256, compressed),
                      Bytes(payload->begin() + 33, payload->end())};
  return open(receiverPrivate, sealed);
}

std::string sealedJson(const hpke::Sealed& sealed,
                       const std::vector<std::pair<std::string, std::string>>& extraFields) {
  std::string out = "{\"encappedPublic\":" + json::stringify(toHex(sealed.encappedPublic)) +
                    ",\"ciphertext\":" + json::stringify(toHex(sealed.ciphertext));
  for (const auto& [name, value] : extraFields)
    out += "," + json::stringify(name) + ":" + json::stringify(value);
  return out + "}";
}

std::optional<hpke::Sealed> parseSealedJson(const std::string& text) {
  try {
    auto o = json::parseObject(text, "bundle");
    auto encapped = fromHex(o->optValue<std::string>("encappedPublic", ""));
    auto ciphertext = fromHex(o->optValue<std::string>("ciphertext", ""));
    if (!encapped || !ciphertext || encapped->empty() || ciphertext->empty()) return std::nullopt;
    return hpke::Sealed{*encapped, *ciphertext};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string signedEnvelope(const std::string& dataJson, const crypto::DigestSigner& sign,
                           const std::string& signerPublicHex) {
  auto signature = sign(crypto::sha256(dataJson));
  // Field order as Turnkey's servers emit it; clients parse JSON, so it is cosmetic.
  return "{\"version\":\"v1.0.0\",\"data\":" + json::stringify(toHex(toBytes(dataJson))) +
         ",\"dataSignature\":" + json::stringify(toHex(crypto::encodeDerSignature(signature))) +
         ",\"enclaveQuorumPublic\":" + json::stringify(signerPublicHex) + "}";
}

std::optional<std::string> openEnvelope(const std::string& envelope,
                                        const std::string& signerPublicHex) {
  try {
    auto o = json::parseObject(envelope, "envelope");
    if (o->optValue<std::string>("enclaveQuorumPublic", "") != signerPublicHex) return std::nullopt;
    auto data = fromHex(o->optValue<std::string>("data", ""));
    auto der = fromHex(o->optValue<std::string>("dataSignature", ""));
    auto key = fromHex(signerPublicHex);
    if (!data || !der || !key) return std::nullopt;
    auto sig = crypto::parseDerSignature(*der);
    if (!sig || !crypto::verifyEcdsa(crypto::Curve::kP256, *key, crypto::sha256(*data), *sig))
      return std::nullopt;
    return toString(*data);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace signet::bundles
