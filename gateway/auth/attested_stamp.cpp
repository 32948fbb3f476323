#include "auth/attested_stamp.hpp"

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"

namespace signet {

AttestedStamp verifyAttestedStamp(const std::string& header, std::string_view body) {
  auto fail = [](const std::string& why) {
    return unauthenticated("X-Stamp-Attested: " + why, "SIGNATURE_INVALID");
  };
  auto decoded = base64Decode(header);
  if (!decoded) throw fail("not base64url");
  json::Object o;
  try {
    o = json::parseObject(toString(*decoded), "X-Stamp-Attested");
  } catch (const Error&) {
    throw fail("not a JSON object");
  }
  std::string scheme = o->optValue<std::string>("scheme", "");
  if (scheme != kAttestedTokenScheme && scheme != kAttestedOidcScheme)
    throw fail("scheme \"" + scheme + "\" is not supported (expected " + kAttestedTokenScheme +
               " or " + kAttestedOidcScheme + ")");
  AttestedStamp s;
  s.scheme = scheme;
  s.token = o->optValue<std::string>("publicKeyAttestation", "");
  if (s.token.empty()) throw fail("publicKeyAttestation is missing");
  auto key = fromHex(o->optValue<std::string>("publicKey", ""));
  auto canonical = key ? crypto::normalizePublicKey(crypto::Curve::kP256, *key) : std::nullopt;
  if (!canonical) throw fail("publicKey is not a P-256 public key");
  s.publicKey = toHex(*canonical);
  auto der = fromHex(o->optValue<std::string>("signature", ""));
  auto sig = der ? crypto::parseDerSignature(*der) : std::nullopt;
  if (!sig || !crypto::verifyEcdsa(crypto::Curve::kP256, *canonical, crypto::sha256(body), *sig))
    throw fail("signature does not verify over the request body with public key " + s.publicKey);
  return s;
}

bool attestedStampAllowedOn(const std::string& path) {
  // approve_activity: an attested stamp presents an email or SMS OTP factor for MFA.
  return path == "/public/v1/submit/stamp_login" || path == "/public/v1/query/get_activity" ||
         path == "/public/v1/submit/approve_activity";
}

}  // namespace signet
