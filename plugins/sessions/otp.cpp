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

int64_t boundedSeconds(const std::optional<int64_t>& v, int64_t fallback, int64_t max) {
  if (!v) return fallback;
  if (*v <= 0 || *v > max)
    throw invalidArgument("invalid field parameters.expirationSeconds: must be 1 to " +
                          std::to_string(max) + ", got " + std::to_string(*v));
  return *v;
}

// Where the code goes, checked: {otpType, contact}.
std::pair<std::string, std::string> destination(const MessageParameters& p) {
  const std::string& type = p.otpType;
  const std::string& contact = p.contact;
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
// The shape requires appName where the version does; it must then not be empty.
Initiated initiate(ActivityContext& ctx, const MessageParameters& p, const PluginState& state,
                   const std::string& purpose, bool appNameRequired, bool lengthAllowed,
                   bool withTargetKey) {
  auto [type, contact] = destination(p);
  if (appNameRequired && p.appName.value_or("").empty())
    throw invalidArgument("invalid field parameters.appName: must not be empty");
  OtpRequest r;
  r.otpType = type;
  r.contact = contact;
  r.purpose = purpose;
  if (lengthAllowed) {
    const auto& length = p.otpLength;
    if (length && (*length < 6 || *length > 9))
      throw invalidArgument("invalid field parameters.otpLength: must be 6 to 9, got " +
                            std::to_string(*length));
    r.length = static_cast<int>(length.value_or(9));
    r.alphanumeric = p.alphanumeric.value_or(true);
  }
  r.expirationSeconds = boundedSeconds(p.expirationSeconds, kDefaultOtpSeconds, kMaxOtpSeconds);
  const std::string userIdentifier = p.userIdentifier.value_or("");
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

namespace {
using M = MessageParameters;

// The fields of init_otp and init_otp_auth.
Shape<M> otpShape(bool appNameRequired) {
  return {field("otpType", &M::otpType),
          field("contact", &M::contact),
          field("otpLength", &M::otpLength, {.decimal = true}),
          field("alphanumeric", &M::alphanumeric),
          field("expirationSeconds", &M::expirationSeconds, {.decimal = true}),
          field("userIdentifier", &M::userIdentifier),
          field("appName", &M::appName, {.displayName = true, .required = appNameRequired}),
          field("emailCustomization", &M::emailCustomization, emailCustomizationShape()),
          field("smsCustomization", &M::smsCustomization, smsCustomizationShape()),
          field("sendFromEmailAddress", &M::sendFromEmailAddress),
          field("sendFromEmailSenderName", &M::sendFromEmailSenderName, {.displayName = true}),
          field("replyToEmailAddress", &M::replyToEmailAddress)};
}

// The fields of email_auth and init_user_email_recovery.
Shape<M> emailedCredentialShape(bool customizationRequired) {
  return {field("email", &M::email),
          field("targetPublicKey", &M::targetPublicKey),
          field("apiKeyName", &M::apiKeyName, {.displayName = true}),
          field("expirationSeconds", &M::expirationSeconds, {.decimal = true}),
          field("invalidateExisting", &M::invalidateExisting),
          field("appName", &M::appName, {.displayName = true}),
          field("emailCustomization", &M::emailCustomization, emailCustomizationShape(),
                {.required = customizationRequired}),
          field("smsCustomization", &M::smsCustomization, smsCustomizationShape()),
          field("sendFromEmailAddress", &M::sendFromEmailAddress),
          field("sendFromEmailSenderName", &M::sendFromEmailSenderName, {.displayName = true}),
          field("replyToEmailAddress", &M::replyToEmailAddress)};
}
}  // namespace

const Shape<M> kInitOtp = otpShape(false), kInitOtpNamed = otpShape(true);
const Shape<M> kEmailCredential = emailedCredentialShape(false),
               kEmailCredentialCustomized = emailedCredentialShape(true);
const Shape<VerifyOtpParameters> kVerifyOtpV1 = {
    field("otpId", &VerifyOtpParameters::otpId),
    field("otpCode", &VerifyOtpParameters::otpCode, {.required = true}),
    field("publicKey", &VerifyOtpParameters::publicKey),
    field("expirationSeconds", &VerifyOtpParameters::expirationSeconds, {.decimal = true})};
const Shape<VerifyOtpParameters> kVerifyOtpV2 = {
    field("otpId", &VerifyOtpParameters::otpId),
    field("encryptedOtpBundle", &VerifyOtpParameters::encryptedOtpBundle, {.required = true}),
    field("expirationSeconds", &VerifyOtpParameters::expirationSeconds, {.decimal = true})};
const Shape<BundleParameters> kOtpAuth = {
    field("otpId", &BundleParameters::otpId),
    field("otpCode", &BundleParameters::otpCode),
    field("targetPublicKey", &BundleParameters::targetPublicKey),
    field("apiKeyName", &BundleParameters::apiKeyName, {.displayName = true}),
    field("expirationSeconds", &BundleParameters::expirationSeconds, {.decimal = true}),
    field("invalidateExisting", &BundleParameters::invalidateExisting)};

Object initOtp(ActivityContext& ctx, const M& p, const PluginState& state) {
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

// V1's shape reads otpCode, V2's encryptedOtpBundle.
Object verifyOtp(ActivityContext& ctx, const VerifyOtpParameters& p) {
  const std::string& otpId = p.otpId;
  int64_t lifetime = boundedSeconds(p.expirationSeconds, kDefaultTokenSeconds, kMaxTokenSeconds);
  std::string code;
  std::optional<std::string> publicKey;
  if (!p.encryptedOtpBundle) {
    code = p.otpCode.value_or("");
    if (const auto& key = p.publicKey; key && !key->empty())
      publicKey = compressedP256(*key, "parameters.publicKey");
  } else {
    const std::string f = "parameters.encryptedOtpBundle";
    auto sealed = bundles::parseSealedJson(*p.encryptedOtpBundle);
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

Object initOtpAuth(ActivityContext& ctx, const M& p, const PluginState& state) {
  const int version = ctx.activityVersion();
  auto done = initiate(ctx, p, state, "auth", version >= 3, version >= 2, false);
  json::Object result = json::object();
  result->set("otpId", done.otpId);
  return result;
}

Object otpAuth(ActivityContext& ctx, const BundleParameters& p) {
  int64_t lifetime = lifetimeOf(p.expirationSeconds);
  OtpRecord otp = redeemOtp(ctx, p.otpId, p.otpCode, "auth");
  auto user = identity(ctx).findUserByContact(ctx, ctx.organizationId(), otp.otpType, otp.contact);
  if (!user)
    throw notFound("no user with contact " + otp.contact + " in organization " +
                   ctx.organizationId());
  std::string name = apiKeyNameOf(ctx, p.apiKeyName, "OTP Auth");
  auto issued =
      issueCredentialBundle(ctx, *user, p.targetPublicKey, "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
                            name, lifetime, p.invalidateExisting.value_or(false));
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

EmailedCredential emailCredential(ActivityContext& ctx, const M& p, const PluginState& state,
                                  const EmailedCredentialKind& kind) {
  std::string email = validateEmail(p.email, "parameters.email");
  const std::string& target = p.targetPublicKey;
  int64_t lifetime = lifetimeOf(p.expirationSeconds);
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
  std::string name = apiKeyNameOf(ctx, p.apiKeyName, kind.keyName);
  auto issued = issueCredentialBundle(ctx, *user, target, kind.credentialType, name, lifetime,
                                      p.invalidateExisting.value_or(false));
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

Object emailAuth(ActivityContext& ctx, const M& p, const PluginState& state) {
  auto sent =
      emailCredential(ctx, p, state,
                      {"FEATURE_NAME_EMAIL_AUTH", "email auth",
                       "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256", "Email Auth", EmailPurpose::kSignIn});
  json::Object result = json::object();
  result->set("userId", sent.user.userId);
  result->set("apiKeyId", sent.apiKeyId);
  return result;
}

Object initUserEmailRecovery(ActivityContext& ctx, const M& p, const PluginState& state) {
  auto sent = emailCredential(
      ctx, p, state,
      {"FEATURE_NAME_EMAIL_RECOVERY", "email recovery", "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256",
       "Recovery", EmailPurpose::kRecovery});
  json::Object result = json::object();
  result->set("userId", sent.user.userId);
  return result;
}

}  // namespace sessions
