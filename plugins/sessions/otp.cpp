#include "otp.hpp"

#include "email_events.hpp"
#include "logins.hpp"
#include "messages.hpp"
#include "otp_codes.hpp"
#include "signet/bundles.hpp"
#include "signet/contacts.hpp"
#include "signet/jwt.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr int64_t kDefaultOtpSeconds = 300, kMaxOtpSeconds = 600;
constexpr int64_t kDefaultTokenSeconds = 3600, kMaxTokenSeconds = 86400;

const IdentityServices& identity(RequestContext& ctx) {
  return ctx.services().identity;
}

int64_t boundedSeconds(const json::Object& p, int64_t fallback, int64_t max) {
  auto v = json::optionalInt64String(p, "expirationSeconds", "parameters");
  if (!v) return fallback;
  if (*v <= 0 || *v > max)
    throw invalidArgument("invalid field parameters.expirationSeconds: must be 1 to " +
                          std::to_string(max) + ", got " + std::to_string(*v));
  return *v;
}

// Where the code goes, checked: {otpType, contact}.
std::pair<std::string, std::string> destination(const json::Object& p) {
  std::string type = json::requireString(p, "otpType", "parameters");
  std::string contact = json::requireString(p, "contact", "parameters");
  if (type == "OTP_TYPE_EMAIL") return {type, validateEmail(contact, "parameters.contact")};
  if (type == "OTP_TYPE_SMS") return {type, validatePhoneNumber(contact, "parameters.contact")};
  throw invalidArgument("invalid field parameters.otpType: \"" + type +
                        "\" (expected OTP_TYPE_EMAIL or OTP_TYPE_SMS)");
}

void requireFeature(ActivityContext& ctx, const std::string& feature, const std::string& what) {
  if (!identity(ctx).authFeatureEnabled(ctx, ctx.organizationId(), feature))
    throw failedPrecondition(what + " is not enabled for organization " + ctx.organizationId() +
                             ": the root organization needs " + feature +
                             ", and a sub-organization must not have disabled it");
}

void requireOtpFeature(ActivityContext& ctx, const std::string& otpType) {
  if (otpType == "OTP_TYPE_EMAIL")
    requireFeature(ctx, "FEATURE_NAME_OTP_EMAIL_AUTH", "OTP by email");
  else
    requireFeature(ctx, "FEATURE_NAME_SMS_AUTH", "OTP by SMS");
}

// init_otp and init_otp_auth: check, store, deliver; the id and (V3) the target bundle.
struct Initiated {
  std::string otpId;
  std::string targetPublicKey;
};
Initiated initiate(ActivityContext& ctx, const json::Object& p, const PluginState& state,
                   const std::string& purpose, bool appNameRequired, bool lengthAllowed,
                   bool withTargetKey) {
  auto [type, contact] = destination(p);
  if (appNameRequired) {
    std::string appName = json::requireName(p, "appName", "parameters");
    if (appName.empty())
      throw invalidArgument("invalid field parameters.appName: must not be empty");
  }
  OtpRequest r;
  r.otpType = type;
  r.contact = contact;
  r.purpose = purpose;
  if (lengthAllowed) {
    auto length = json::optionalInt64String(p, "otpLength", "parameters");
    if (length && (*length < 6 || *length > 9))
      throw invalidArgument("invalid field parameters.otpLength: must be 6 to 9, got " +
                            std::to_string(*length));
    r.length = static_cast<int>(length.value_or(9));
    r.alphanumeric = json::optionalBool(p, "alphanumeric", "parameters", true);
  }
  r.expirationSeconds = boundedSeconds(p, kDefaultOtpSeconds, kMaxOtpSeconds);
  std::string userIdentifier = json::optionalString(p, "userIdentifier", "parameters").value_or("");
  // The mailbox an email reaches is what is counted: victim+1@ and "victim"@ count as victim@.
  r.rateKey = !userIdentifier.empty()    ? "user:" + userIdentifier
              : type == "OTP_TYPE_EMAIL" ? mailboxKey(contact)
                                         : contact;
  r.withTargetKey = withTargetKey;
  Customization custom = readCustomization(p, state.settings);
  requireOtpFeature(ctx, type);
  if (purpose == "auth" &&
      !identity(ctx).findUserByContact(ctx, ctx.organizationId(), type, contact))
    throw notFound("no user with contact " + contact + " in organization " + ctx.organizationId());

  CreatedOtp created = createOtp(ctx, r);
  // Delivered once the code is committed, outside the write lock, so that a slow relay holds
  // up only this request. A delivery failure fails the activity and removes the code, so no
  // usable code is left behind.
  const Delivery& delivery = state.delivery;
  auto undo = [id = created.id](ActivityContext& undo) { deleteOtp(undo, id); };
  if (type == "OTP_TYPE_EMAIL")
    ctx.afterCommit(emailCall(
        ctx.organizationId(),
        [&delivery,
         m = otpEmail(state.settings, custom, contact, created.code, r.expirationSeconds)](
            EmailReport* report) { delivery.sendEmail(m, report); },
        undo));
  else
    ctx.afterCommit([&delivery, m = otpSms(custom, contact, created.code)] { delivery.sendSms(m); },
                    undo);
  return {created.id, created.targetPublicKey};
}

std::string verificationToken(ActivityContext& ctx, const OtpRecord& otp,
                              const std::optional<std::string>& publicKey, int64_t lifetime) {
  auto field = [](const char* name, const std::string& value) {
    return std::string("\"") + name + "\":" + jwt::atobSafeJsonString(value);
  };
  std::string claims =
      "{" + field("id", ctx.newId()) + "," + field("verification_type", otp.otpType) + "," +
      field("contact", otp.contact) + "," + field("organization_id", otp.organizationId) + ",";
  if (publicKey) claims += field("public_key", *publicKey) + ",";
  claims += field("exp", std::to_string(ctx.nowMs() + lifetime * 1000)) + "}";
  return jwt::signEs256(ctx.gatewaySigner(), R"({"typ":"JWT","alg":"ES256"})", claims,
                        jwt::Hashing::kSingleSha256);
}

}  // namespace

Object initOtp(ActivityContext& ctx, const Object& p, const PluginState& state) {
  const int version = ctx.activityVersion();
  auto done = initiate(ctx, p, state, "verify", version >= 2, true, version >= 3);
  json::Object result = json::object();
  result->set("otpId", done.otpId);
  if (version >= 3) {
    std::string data = "{\"targetPublic\":" + json::stringify(done.targetPublicKey) + "}";
    result->set("otpEncryptionTargetBundle",
                bundles::signedEnvelope(data, ctx.gatewaySigner(), ctx.signerPublicKey()));
  }
  return result;
}

Object verifyOtp(ActivityContext& ctx, const Object& p) {
  const int version = ctx.activityVersion();
  std::string otpId = json::requireString(p, "otpId", "parameters");
  int64_t lifetime = boundedSeconds(p, kDefaultTokenSeconds, kMaxTokenSeconds);
  std::string code;
  std::optional<std::string> publicKey;
  if (version == 1) {
    code = json::requireString(p, "otpCode", "parameters");
    if (auto key = json::optionalString(p, "publicKey", "parameters"); key && !key->empty())
      publicKey = compressedP256(*key, "parameters.publicKey");
  } else {
    const std::string f = "parameters.encryptedOtpBundle";
    auto sealed =
        bundles::parseSealedJson(json::requireString(p, "encryptedOtpBundle", "parameters"));
    if (!sealed)
      throw invalidArgument("invalid field " + f +
                            ": expected {\"encappedPublic\":\"04…\",\"ciphertext\":\"…\"}");
    auto plain = bundles::open(otpTargetKey(ctx, otpId), *sealed);
    if (!plain)
      throw invalidArgument("invalid field " + f + ": it was not encrypted to OTP " + otpId +
                            "'s target key (otpEncryptionTargetBundle)");
    auto inner = json::parseObject(toString(plain->bytes()), f);
    code = json::requireString(inner, "otp_code", f);
    publicKey = compressedP256(json::requireString(inner, "public_key", f), f + ".public_key");
  }
  OtpRecord otp = redeemOtp(ctx, otpId, code, "verify");
  json::Object result = json::object();
  result->set("verificationToken", verificationToken(ctx, otp, publicKey, lifetime));
  return result;
}

Object initOtpAuth(ActivityContext& ctx, const Object& p, const PluginState& state) {
  const int version = ctx.activityVersion();
  auto done = initiate(ctx, p, state, "auth", version >= 3, version >= 2, false);
  json::Object result = json::object();
  result->set("otpId", done.otpId);
  return result;
}

Object otpAuth(ActivityContext& ctx, const Object& p) {
  std::string otpId = json::requireString(p, "otpId", "parameters");
  std::string code = json::requireString(p, "otpCode", "parameters");
  std::string target = json::requireString(p, "targetPublicKey", "parameters");
  int64_t lifetime = lifetimeOf(p);
  OtpRecord otp = redeemOtp(ctx, otpId, code, "auth");
  auto user = identity(ctx).findUserByContact(ctx, ctx.organizationId(), otp.otpType, otp.contact);
  if (!user)
    throw notFound("no user with contact " + otp.contact + " in organization " +
                   ctx.organizationId());
  std::string name = apiKeyNameOf(ctx, p, "OTP Auth");
  auto issued =
      issueCredentialBundle(ctx, *user, target, "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256", name, lifetime,
                            json::optionalBool(p, "invalidateExisting", "parameters", false));
  json::Object result = json::object();
  result->set("userId", user->userId);
  result->set("apiKeyId", issued.apiKeyId);
  result->set("credentialBundle", issued.credentialBundle);
  return result;
}

namespace {
// email_auth and init_user_email_recovery: a fresh key for the user with `email`, registered
// as `credentialType` and sent, sealed to the client's target key, only by email.
struct EmailedCredentialKind {
  const char* feature;         // FEATURE_NAME_EMAIL_AUTH, FEATURE_NAME_EMAIL_RECOVERY
  const char* what;            // for messages
  const char* credentialType;  // CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256, ..._RECOVER_USER_...
  const char* keyName;         // the default API key name's prefix
  EmailPurpose purpose;
};
struct EmailedCredential {
  UserRef user;
  std::string apiKeyId;
};

EmailedCredential emailCredential(ActivityContext& ctx, const Object& p, const PluginState& state,
                                  const EmailedCredentialKind& kind, bool customizationRequired) {
  std::string email =
      validateEmail(json::requireString(p, "email", "parameters"), "parameters.email");
  std::string target = json::requireString(p, "targetPublicKey", "parameters");
  if (customizationRequired) json::requireObject(p, "emailCustomization", "parameters");
  int64_t lifetime = lifetimeOf(p);
  Customization custom = readCustomization(p, state.settings);
  requireFeature(ctx, kind.feature, kind.what);
  auto user = identity(ctx).findUserByContact(ctx, ctx.organizationId(), "OTP_TYPE_EMAIL", email);
  if (!user)
    throw notFound("no user with email " + email + " in organization " + ctx.organizationId());
  if (kind.purpose == EmailPurpose::kRecovery &&
      identity(ctx).isRootUserOfRootOrganization(ctx, user->organizationId, user->userId) &&
      !identity(ctx).authFeatureEnabled(ctx, ctx.organizationId(),
                                        "FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY"))
    throw failedPrecondition("user " + user->userId + " is a root user of root organization " +
                             user->organizationId +
                             ": recovering root users by email needs "
                             "FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY");
  std::string name = apiKeyNameOf(ctx, p, kind.keyName);
  auto issued =
      issueCredentialBundle(ctx, *user, target, kind.credentialType, name, lifetime,
                            json::optionalBool(p, "invalidateExisting", "parameters", false));
  // The bundle travels only by email: the activity result carries the key's id, not the key.
  // Sent once the key is committed; if it cannot be, the key is revoked.
  ctx.afterCommit(emailCall(
      ctx.organizationId(),
      [&delivery = state.delivery,
       m = credentialEmail(state.settings, custom, email, issued.credentialBundle, lifetime,
                           kind.purpose)](EmailReport* report) { delivery.sendEmail(m, report); },
      [org = user->organizationId, userId = user->userId,
       apiKeyId = issued.apiKeyId](ActivityContext& undo) {
        identity(undo).deleteSessionKey(undo, org, userId, apiKeyId);
      }));
  return {*user, issued.apiKeyId};
}
}  // namespace

Object emailAuth(ActivityContext& ctx, const Object& p, const PluginState& state) {
  auto sent =
      emailCredential(ctx, p, state,
                      {"FEATURE_NAME_EMAIL_AUTH", "email auth",
                       "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256", "Email Auth", EmailPurpose::kSignIn},
                      ctx.activityVersion() >= 3);
  json::Object result = json::object();
  result->set("userId", sent.user.userId);
  result->set("apiKeyId", sent.apiKeyId);
  return result;
}

Object initUserEmailRecovery(ActivityContext& ctx, const Object& p, const PluginState& state) {
  auto sent = emailCredential(
      ctx, p, state,
      {"FEATURE_NAME_EMAIL_RECOVERY", "email recovery", "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256",
       "Recovery", EmailPurpose::kRecovery},
      ctx.activityVersion() >= 2);
  json::Object result = json::object();
  result->set("userId", sent.user.userId);
  return result;
}

}  // namespace sessions
