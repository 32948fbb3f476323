#include "mfa/presentation.hpp"

#include "auth/attested_stamp.hpp"
#include "signet/jwt.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet::mfa {

namespace {
Method attested(const Caller& caller) {
  // The resolver verified the token's signature, expiry and binding before this runs.
  auto claims = jwt::decodeClaims(caller.attestation);
  std::string type = claims ? (*claims)->optValue<std::string>("verification_type", "") : "";
  if (type == "OTP_TYPE_EMAIL") return {kEmailOtp, ""};
  if (type == "OTP_TYPE_SMS") return {kSmsOtp, ""};
  throw unauthenticated("X-Stamp-Attested: verification token of unknown type \"" + type + "\"");
}

// An OIDC-attested stamp presents OAuth, pinned to the provider its token matched (the resolver
// verified the token and found the user by it).
Method attestedByOidc(Db& db, const Caller& caller) {
  auto claims = jwt::decodeClaims(caller.attestation);
  if (!claims) throw unauthenticated("X-Stamp-Attested: the OIDC token is not a JWT");
  auto id = oauth_providers::providerOfToken(db, caller.organizationId, caller.userId, *claims);
  if (!id) throw unauthenticated("the OAuth provider of user " + caller.userId + " is gone");
  return {kOauth, *id};
}
}  // namespace

Method presentedBy(DirectoryView& directory, const Caller& caller) {
  Db& db = directory.db();
  if (caller.scheme == kAttestedTokenScheme) return attested(caller);
  if (caller.scheme == kAttestedOidcScheme) return attestedByOidc(db, caller);
  if (caller.scheme == "SIGNATURE_SCHEME_TK_WEBAUTHN") {
    auto a = directory::findAuthenticatorOfUser(db, caller.userId, caller.publicKey);
    if (!a) throw unauthenticated("authenticator of user " + caller.userId + " is gone");
    return {kPasskey, a->id};
  }
  auto k = directory.apiKeyOfUser(caller.userId, caller.publicKey);
  if (!k)
    throw unauthenticated("API key " + caller.publicKey + " of user " + caller.userId + " is gone");
  if (isApiKeyType(k->credentialType)) return {kApiKey, k->id};
  return {kSession, k->sessionProfileId.value_or(kDefaultSessionProfileId)};
}

}  // namespace signet::mfa
