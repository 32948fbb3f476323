#include "logins.hpp"

#include "profiles.hpp"
#include "session_jwt.hpp"
#include "signet/bundles.hpp"
#include "signet/client_signature.hpp"
#include "signet/contacts.hpp"
#include "signet/key_params.hpp"

namespace sessions {

using namespace signet;

namespace {
const IdentityServices& identity(RequestContext& ctx) {
  return ctx.services().identity;
}

UserRef callerUser(ActivityContext& ctx) {
  const Caller& c = ctx.caller();
  auto user = identity(ctx).findUser(ctx, ctx.organizationId(), c.userId);
  if (!user)
    throw notFound("user " + c.userId + " not found in organization " + ctx.organizationId());
  return *user;
}
}  // namespace

const Shape<LoginParameters> kStampLogin = {
    field("publicKey", &LoginParameters::publicKey),
    field("expirationSeconds", &LoginParameters::expirationSeconds, {.decimal = true}),
    field("sessionProfileId", &LoginParameters::sessionProfileId),
    field("invalidateExisting", &LoginParameters::invalidateExisting)};
const Shape<LoginParameters> kOtpLogin = {
    field("verificationToken", &LoginParameters::verificationToken),
    field("publicKey", &LoginParameters::publicKey),
    field("clientSignature", &LoginParameters::clientSignature),
    field("expirationSeconds", &LoginParameters::expirationSeconds, {.decimal = true}),
    field("sessionProfileId", &LoginParameters::sessionProfileId),
    field("invalidateExisting", &LoginParameters::invalidateExisting)};
const Shape<BundleParameters> kCreateReadWriteSessionV1 = {
    field("targetPublicKey", &BundleParameters::targetPublicKey),
    field("email", &BundleParameters::email),
    field("apiKeyName", &BundleParameters::apiKeyName, {.displayName = true}),
    field("expirationSeconds", &BundleParameters::expirationSeconds, {.decimal = true})};
const Shape<BundleParameters> kCreateReadWriteSessionV2 = {
    field("targetPublicKey", &BundleParameters::targetPublicKey),
    field("userId", &BundleParameters::userId),
    field("apiKeyName", &BundleParameters::apiKeyName, {.displayName = true}),
    field("expirationSeconds", &BundleParameters::expirationSeconds, {.decimal = true}),
    field("invalidateExisting", &BundleParameters::invalidateExisting)};

json::Object loginSession(ActivityContext& ctx, const UserRef& user, const LoginParameters& p) {
  std::string publicKey = compressedP256(p.publicKey, "parameters.publicKey");
  int64_t lifetime = lifetimeOf(p.expirationSeconds);
  SessionClaims claims;
  claims.sessionType = "SESSION_TYPE_READ_WRITE";
  if (const auto& profileId = p.sessionProfileId; profileId && !profileId->empty()) {
    auto profile = requireProfile(ctx, user.organizationId, *profileId);
    if (profile.expirationSeconds) lifetime = std::min(lifetime, *profile.expirationSeconds);
    claims.sessionType = profile.name;
    claims.sessionProfileId = profile.id;
    claims.scope = profile.scope;
  }
  if (p.invalidateExisting.value_or(false))
    identity(ctx).revokeSessionKeys(ctx, user.organizationId, user.userId,
                                    {"CREDENTIAL_TYPE_LOGIN"});
  identity(ctx).issueSessionKey(
      ctx, user.organizationId, user.userId,
      {keyName("Session Key", ctx.nowMs()), publicKey, "CREDENTIAL_TYPE_LOGIN", lifetime,
       claims.sessionProfileId.value_or("")});
  claims.expiresAtSeconds = ctx.nowMs() / 1000 + lifetime;
  claims.publicKey = publicKey;
  claims.userId = user.userId;
  claims.organizationId = user.organizationId;
  json::Object result = json::object();
  result->set("session", signSessionJwt(ctx, claims));
  return result;
}

std::string compressedP256(const std::string& hex, const std::string& field) {
  return toHex(p256PublicKeyParam(hex, field));
}

std::string keyName(const std::string& prefix, int64_t nowMs) {
  return prefix + " - " + std::to_string(nowMs / 1000);
}

std::string apiKeyNameOf(ActivityContext& ctx, const std::optional<std::string>& apiKeyName,
                         const std::string& prefix) {
  return apiKeyName.value_or(keyName(prefix, ctx.nowMs()));
}

int64_t lifetimeOf(const std::optional<int64_t>& seconds) {
  if (!seconds) return kDefaultSessionSeconds;
  if (*seconds <= 0)
    throw invalidArgument("invalid field parameters.expirationSeconds: must be positive, got " +
                          std::to_string(*seconds));
  return *seconds;
}

json::Object stampLogin(ActivityContext& ctx, const LoginParameters& p) {
  UserRef user = callerUser(ctx);
  // An attested stamp's verification token is single use: this login spends it (the
  // get_activity polls that follow may still show it). An OIDC attestation is the issuer's,
  // good until it expires.
  if (ctx.caller().scheme == "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN")
    identity(ctx).verificationToken(ctx, ctx.caller().attestation, ctx.organizationId(),
                                    "X-Stamp-Attested", true);
  return loginSession(ctx, user, p);
}

json::Object otpLogin(ActivityContext& ctx, const LoginParameters& p) {
  const int version = ctx.activityVersion();
  const std::string& token = p.verificationToken;
  std::string publicKey = compressedP256(p.publicKey, "parameters.publicKey");
  VerifiedContact v = identity(ctx).verificationToken(ctx, token, ctx.organizationId(),
                                                      "parameters.verificationToken", true);
  json::Object signature = p.clientSignature ? *p.clientSignature : json::Object();
  if (!signature && (version >= 2 || v.publicKey))
    throw invalidArgument("invalid field parameters.clientSignature: required " +
                          std::string(version >= 2 ? "by OTP_LOGIN_V2"
                                                   : "because the verification token is bound "
                                                     "to a public key"));
  if (signature && signature->optValue<std::string>("message", "") == token) {
    // The auth proxy specification's form: a signature over the token itself, which names no
    // session key, so it logs in only the key the token was bound to at otp_verify.
    if (!v.publicKey)
      throw invalidArgument(
          "invalid field parameters.clientSignature: the verification token is bound to no key "
          "to check it with; give the key to otp_verify (publicKey)");
    if (publicKey != *v.publicKey)
      throw invalidArgument("invalid field parameters.publicKey: " + publicKey +
                            " is not the key the verification token is bound to (" + *v.publicKey +
                            "); a clientSignature over the token itself logs in that key only");
    if (auto key = signature->optValue<std::string>("publicKey", "");
        !key.empty() && compressedP256(key, "parameters.clientSignature.publicKey") != *v.publicKey)
      throw invalidArgument("invalid field parameters.clientSignature.publicKey: " + key +
                            " is not the verification token's key");
    checkTokenSignature(signature, *v.publicKey, token, "parameters.clientSignature");
  } else if (signature) {
    auto message =
        checkClientSignature(signature, v, "USAGE_TYPE_LOGIN", "parameters.clientSignature");
    auto login = message->getObject("login");
    std::string signedKey = login ? login->optValue<std::string>("publicKey", "") : "";
    if (signedKey.empty() ||
        compressedP256(signedKey, "parameters.clientSignature.message.login.publicKey") !=
            publicKey)
      throw invalidArgument(
          "invalid field parameters.clientSignature.message: it authorizes login.publicKey " +
          signedKey + ", not " + publicKey);
  }
  auto user = identity(ctx).findUserByContact(ctx, ctx.organizationId(), v.type, v.contact);
  if (!user)
    throw notFound("no user with " +
                   std::string(v.type == "OTP_TYPE_SMS" ? "phone number " : "email ") + v.contact +
                   " in organization " + ctx.organizationId());
  return loginSession(ctx, *user, p);
}

IssuedCredential issueCredentialBundle(ActivityContext& ctx, const UserRef& user,
                                       const std::string& targetPublicKey,
                                       const std::string& credentialType,
                                       const std::string& apiKeyName, int64_t expirationSeconds,
                                       bool invalidateExisting) {
  Bytes target = p256PublicKeyParam(targetPublicKey, "parameters.targetPublicKey");
  if (invalidateExisting)
    identity(ctx).revokeSessionKeys(ctx, user.organizationId, user.userId, {credentialType});
  auto key = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string publicKey = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, key));
  IssuedCredential out;
  out.apiKeyId =
      identity(ctx).issueSessionKey(ctx, user.organizationId, user.userId,
                                    {apiKeyName, publicKey, credentialType, expirationSeconds});
  out.credentialBundle = bundles::credentialBundle(target, key);
  return out;
}

// V1's shape reads email, V2's userId and invalidateExisting.
json::Object createReadWriteSession(ActivityContext& ctx, const BundleParameters& p) {
  const int version = ctx.activityVersion();
  std::optional<UserRef> user;
  if (version == 1) {
    std::string email = validateEmail(p.email, "parameters.email");
    user = identity(ctx).findUserByContact(ctx, ctx.organizationId(), "OTP_TYPE_EMAIL", email);
    if (!user)
      throw notFound("no user with email " + email + " in organization " + ctx.organizationId());
  } else if (const auto& userId = p.userId; userId && !userId->empty()) {
    user = identity(ctx).findUser(ctx, ctx.organizationId(), *userId);
    if (!user)
      throw notFound("user " + *userId + " not found in organization " + ctx.organizationId());
  } else {
    user = callerUser(ctx);
  }
  std::string name = apiKeyNameOf(ctx, p.apiKeyName, "Read Write Session");
  auto issued = issueCredentialBundle(
      ctx, *user, p.targetPublicKey, "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256", name,
      lifetimeOf(p.expirationSeconds), p.invalidateExisting.value_or(false));
  json::Object result = json::object();
  result->set("organizationId", user->organizationId);
  result->set("organizationName", identity(ctx).organizationName(ctx, user->organizationId));
  result->set("userId", user->userId);
  result->set("username", user->userName);
  result->set("apiKeyId", issued.apiKeyId);
  result->set("credentialBundle", issued.credentialBundle);
  return result;
}

json::Object createReadOnlySession(ActivityContext& ctx, const json::Object&) {
  UserRef user = callerUser(ctx);
  SessionClaims claims;
  claims.expiresAtSeconds = ctx.nowMs() / 1000 + kDefaultSessionSeconds;
  claims.publicKey = ctx.caller().publicKey;
  claims.sessionType = "SESSION_TYPE_READ_ONLY";
  claims.userId = user.userId;
  claims.organizationId = user.organizationId;
  json::Object result = json::object();
  result->set("organizationId", user.organizationId);
  result->set("organizationName", identity(ctx).organizationName(ctx, user.organizationId));
  result->set("userId", user.userId);
  result->set("username", user.userName);
  result->set("session", signSessionJwt(ctx, claims));
  result->set("sessionExpiry", std::to_string(claims.expiresAtSeconds));
  return result;
}

}  // namespace sessions
