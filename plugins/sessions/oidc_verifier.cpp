#include "oidc_verifier.hpp"

#include <algorithm>

#include "signet/jwt.hpp"

namespace sessions {

using namespace signet;

namespace {
json::Object decodedJson(const std::string& part, const std::string& field, const char* what) {
  auto raw = base64Decode(part);
  if (!raw) throw invalidArgument("invalid field " + field + ": the " + what + " is not base64url");
  try {
    return json::parseObject(std::string(raw->begin(), raw->end()), field);
  } catch (const Error&) {
    throw invalidArgument("invalid field " + field + ": the " + what + " is not a JSON object");
  }
}

// A NumericDate claim (RFC 7519 §2), or nullopt when absent.
std::optional<int64_t> numericDate(const json::Object& claims, const std::string& name,
                                   const std::string& field) {
  if (!claims->has(name)) return std::nullopt;
  auto v = claims->get(name);
  if (!v.isNumeric())
    throw invalidArgument("invalid field " + field + ": claim " + name + " is not a number");
  return static_cast<int64_t>(v.convert<double>());
}

void requireTrusted(const OidcSettings& settings,
                    const std::function<bool(const std::string&)>& storedIssuer,
                    const std::string& issuer, const std::string& field) {
  if (!settings.allowedIssuers.empty()) {
    if (listedIn(settings.allowedIssuers, issuer)) return;
    throw invalidArgument("invalid field " + field + ": issuer not trusted: " + issuer +
                          " is not in plugins.settings.sessions.oidc.allowedIssuers");
  }
  if (listedIn(settings.trustedIssuers, issuer) || listedIn(settings.insecureIssuers, issuer) ||
      (storedIssuer && storedIssuer(issuer)))
    return;
  throw invalidArgument("invalid field " + field + ": issuer not trusted: " + issuer +
                        " is neither in plugins.settings.sessions.oidc.trustedIssuers nor the "
                        "issuer of an OAuth provider stored in this gateway");
}

bool signatureHolds(const Jwk& key, const std::string& alg, const std::string& signedText,
                    const Bytes& signature) {
  auto data = reinterpret_cast<const uint8_t*>(signedText.data());
  if (alg == "RS256")
    return key.kty == "RSA" &&
           crypto::verifyRsaSha256(key.modulus, key.exponent, data, signedText.size(), signature);
  if (key.kty != "EC" || signature.size() != 64) return false;
  crypto::EcdsaSignature sig;
  std::copy(signature.begin(), signature.begin() + 32, sig.r.begin());
  std::copy(signature.begin() + 32, signature.end(), sig.s.begin());
  return crypto::verifyEcdsa(crypto::Curve::kP256, key.point, crypto::sha256(signedText), sig);
}
}  // namespace

OidcIdentity verifyIdToken(OidcKeyCache& keys, const OidcSettings& settings,
                           const GatewayFacts& self,
                           const std::function<bool(const std::string&)>& storedIssuer,
                           const std::string& token, const std::string& field, int64_t nowMs,
                           bool mayFetch) {
  auto parts = jwt::split(token);
  if (!parts) throw invalidArgument("invalid field " + field + ": not a JWT (three parts)");
  json::Object header = decodedJson(parts->header, field, "header");
  json::Object claims = decodedJson(parts->payload, field, "payload");
  std::string alg = header->optValue<std::string>("alg", "");
  if (alg != "RS256" && alg != "ES256")
    throw invalidArgument("invalid field " + field + ": algorithm \"" + alg +
                          "\" is not accepted (RS256 or ES256)");

  OidcIdentity id;
  id.claims = claims;
  id.issuer = claims->optValue<std::string>("iss", "");
  id.subject = claims->optValue<std::string>("sub", "");
  if (id.issuer.empty() || id.subject.empty())
    throw invalidArgument("invalid field " + field + ": the token has no iss or no sub");
  bool selfIssued = !self.publicUrl.empty() && id.issuer == self.publicUrl;
  if (!selfIssued) requireTrusted(settings, storedIssuer, id.issuer, field);
  id.audiences = jwt::audiences(claims);
  if (id.audiences.empty())
    throw invalidArgument("invalid field " + field + ": the token has no aud");
  id.nonce = claims->optValue<std::string>("nonce", "");
  if (id.nonce.empty()) id.nonce = claims->optValue<std::string>("tknonce", "");

  // The times first: an expired token costs no fetch of its issuer's keys.
  int64_t now = nowMs / 1000;
  auto exp = numericDate(claims, "exp", field);
  if (!exp) throw invalidArgument("invalid field " + field + ": the token has no exp");
  if (now > *exp + kOidcLeewaySeconds)
    throw invalidArgument("invalid field " + field + ": the token expired at " +
                          std::to_string(*exp) + " (now " + std::to_string(now) + ")");
  if (auto nbf = numericDate(claims, "nbf", field); nbf && now < *nbf - kOidcLeewaySeconds)
    throw invalidArgument("invalid field " + field + ": the token is not valid before " +
                          std::to_string(*nbf) + " (now " + std::to_string(now) + ")");
  if (auto iat = numericDate(claims, "iat", field); iat && now < *iat - kOidcLeewaySeconds)
    throw invalidArgument("invalid field " + field + ": the token was issued in the future, at " +
                          std::to_string(*iat) + " (now " + std::to_string(now) + ")");

  std::string kid = header->optValue<std::string>("kid", "");
  std::optional<Jwk> key;
  if (selfIssued) {
    if (kid == self.oidcIssuerKeyId) {
      Jwk own;
      own.kid = kid;
      own.kty = "EC";
      own.alg = "ES256";
      own.point = *fromHex(self.oidcIssuerPublicKey);
      key = std::move(own);
    }
  } else {
    key = keys.key(id.issuer, kid, nowMs, mayFetch);
  }
  if (!key)
    throw invalidArgument("invalid field " + field + ": key id \"" + kid +
                          "\" is not among issuer " + id.issuer +
                          "'s keys, even after refreshing them");
  if (!key->alg.empty() && key->alg != alg)
    throw invalidArgument("invalid field " + field + ": the token says " + alg + " but key \"" +
                          kid + "\" is for " + key->alg);
  auto signature = base64Decode(parts->signature);
  if (!signature || !signatureHolds(*key, alg, parts->header + "." + parts->payload, *signature))
    throw invalidArgument("invalid field " + field + ": the signature does not verify under " +
                          id.issuer + "'s key \"" + kid + "\"");

  return id;
}

void requireNonceFor(const OidcIdentity& id, const std::string& publicKey,
                     const std::string& field) {
  std::string expected = jwt::oidcNonce(publicKey);
  if (id.nonce != expected)
    throw invalidArgument("invalid field " + field + ": nonce \"" + id.nonce +
                          "\" does not bind the token to public key " + publicKey +
                          " (expected sha256 of the key's hex, " + expected + ")");
}

}  // namespace sessions
