#include "sealed_key.hpp"

#include "signet/encoding.hpp"
#include "signet/error.hpp"
#include "signet/hpke.hpp"
#include "signet/stamp.hpp"

namespace auth_proxy {

using namespace signet;

namespace {
const Bytes& info() {
  static const std::string text = "signet auth-proxy api key";
  static const Bytes bytes(text.begin(), text.end());
  return bytes;
}
Bytes bothKeys(const Bytes& encapped, const Bytes& receiver) {
  Bytes aad = encapped;
  aad.insert(aad.end(), receiver.begin(), receiver.end());
  return aad;
}
}  // namespace

SealedKey sealProxyKey(const crypto::SecretBytes& apiKey, const Bytes& serviceKeyPublic) {
  auto sealed =
      hpke::seal(serviceKeyPublic, apiKey.bytes().data(), apiKey.size(), info(), bothKeys);
  return {toHex(sealed.encappedPublic), toHex(sealed.ciphertext)};
}

crypto::SecretBytes openProxyKey(const SealedKey& sealed, const crypto::SecretBytes& serviceKey) {
  auto encapped = fromHex(sealed.encappedPublic);
  auto ciphertext = fromHex(sealed.ciphertext);
  std::optional<crypto::SecretBytes> key;
  if (encapped && ciphertext)
    key = hpke::open(serviceKey, *encapped, *ciphertext, info(), bothKeys);
  if (!key || key->size() != 32)
    throw unauthenticated(
        "the proxy API key does not open under this proxy's service key: the coordinator "
        "sealed it to another proxy");
  return std::move(*key);
}

json::Object sealedKeyJson(const SealedKey& k) {
  json::Object o = json::object();
  o->set("encappedPublic", k.encappedPublic);
  o->set("ciphertext", k.ciphertext);
  return o;
}

SealedKey sealedKeyFrom(const json::Object& o, const std::string& path) {
  return {json::requireString(o, "encappedPublic", path),
          json::requireString(o, "ciphertext", path)};
}

std::pair<std::string, std::string> SealedKeyStamper::stamp(std::string_view body) {
  crypto::SecretBytes key = openProxyKey(sealed_, *serviceKey_);  // wiped when it goes
  return {"X-Stamp", stamp::encodeHeader(stamp::sign(stamp::Scheme::kP256, key, body))};
}

}  // namespace auth_proxy
