#include "webauthn.hpp"

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"

namespace signet {

namespace {
Error refuse(const std::string& why) {
  return unauthenticated("X-Stamp-WebAuthn: " + why, "SIGNATURE_INVALID");
}

Bytes decodeField(const json::Object& o, const std::string& key) {
  std::string value;
  try {
    value = json::requireString(o, key, "X-Stamp-WebAuthn");
  } catch (const Error& e) {
    throw refuse(e.what());
  }
  auto bytes = base64Decode(value);
  if (!bytes) throw refuse(key + " is not base64url");
  return *bytes;
}
}  // namespace

std::string webauthnChallenge(std::string_view body) {
  return base64UrlEncode(crypto::toHex(crypto::sha256(body)));
}

WebAuthnStamp parseWebAuthnStamp(const std::string& header) {
  json::Object o;
  try {
    o = json::parseObject(header, "X-Stamp-WebAuthn");
  } catch (const Error& e) {
    throw refuse(e.what());
  }
  WebAuthnStamp s;
  // Normalize the id to unpadded base64url, the form it was registered in.
  s.credentialId = base64UrlEncode(decodeField(o, "credentialId"));
  s.authenticatorData = decodeField(o, "authenticatorData");
  s.clientDataJson = decodeField(o, "clientDataJson");
  s.signature = decodeField(o, "signature");
  return s;
}

int64_t verifyAssertion(const WebAuthnStamp& stamp, const AuthenticatorRecord& authenticator,
                        std::string_view body, const std::vector<std::string>& rpIds) {
  json::Object clientData;
  try {
    clientData = json::parseObject(toString(stamp.clientDataJson), "clientDataJson");
  } catch (const Error& e) {
    throw refuse(e.what());
  }
  auto type = clientData->optValue<std::string>("type", "");
  if (type != "webauthn.get") throw refuse("clientData type is \"" + type + "\", not webauthn.get");
  auto challenge = clientData->optValue<std::string>("challenge", "");
  auto decodedChallenge = base64Decode(challenge);
  if (!decodedChallenge || toString(*decodedChallenge) != crypto::toHex(crypto::sha256(body)))
    throw refuse("clientData challenge is not the SHA-256 of this request body");

  const Bytes& ad = stamp.authenticatorData;
  if (ad.size() < 37) throw refuse("authenticatorData is shorter than 37 bytes");
  if (!rpIds.empty()) {
    bool matched = false;
    for (const auto& rp : rpIds) {
      auto h = crypto::sha256(rp);
      matched = matched || std::equal(h.begin(), h.end(), ad.begin());
    }
    if (!matched) throw refuse("rpIdHash matches none of the configured relying-party ids");
  }
  if (!(ad[32] & 0x01)) throw refuse("the user-present flag is not set");
  int64_t counter = int64_t{ad[33]} << 24 | int64_t{ad[34]} << 16 | int64_t{ad[35]} << 8 | ad[36];
  // A counter that does not advance signals a cloned authenticator. Authenticators that do
  // not count (always 0) are allowed, as WebAuthn §7.2 step 21 says.
  if ((counter != 0 || authenticator.signCount != 0) && counter <= authenticator.signCount)
    throw refuse("signature counter " + std::to_string(counter) + " did not advance past " +
                 std::to_string(authenticator.signCount) + " (possible cloned authenticator)");

  Bytes signed_ = ad;
  auto clientHash = crypto::sha256(stamp.clientDataJson);
  signed_.insert(signed_.end(), clientHash.begin(), clientHash.end());
  bool ok = false;
  if (authenticator.algorithm == -7) {
    auto sig = crypto::parseDerSignature(stamp.signature);
    auto pub = fromHex(authenticator.publicKey);
    ok = sig && pub &&
         crypto::verifyEcdsa(crypto::Curve::kP256, *pub, crypto::sha256(signed_), *sig);
  } else if (authenticator.algorithm == -257) {
    auto n = fromHex(authenticator.publicKey);
    auto e = fromHex(authenticator.rsaExponent.value_or(""));
    ok = n && e && crypto::verifyRsaSha256(*n, *e, signed_.data(), signed_.size(), stamp.signature);
  } else {
    throw refuse("authenticator " + authenticator.id + " uses unsupported COSE algorithm " +
                 std::to_string(authenticator.algorithm));
  }
  if (!ok) throw refuse("signature does not verify for credential " + stamp.credentialId);
  return counter;
}

}  // namespace signet
