#include "endpoints.hpp"

#include <algorithm>

#include "signet/contacts.hpp"
#include "signet/encoding.hpp"
#include "signet/jwt.hpp"

namespace auth_proxy {

using namespace signet;

namespace {

const std::string kBody = "body";

const json::Object& raw(const ProxyCall& c) {
  return c.config.settings.raw;
}

void requireMethod(const ProxyCall& c, const std::string& method, const std::string& label) {
  if (!methodAllowed(c.config.settings, method))
    throw permissionDenied(label +
                           " disallowed: the allowedAuthMethods of auth proxy "
                           "configuration " +
                           c.config.configId + " do not include \"" + method + "\"");
}

void copyIfPresent(const json::Object& from, json::Object to, const std::string& key) {
  if (from && from->has(key) && !from->isNull(key)) to->set(key, from->get(key));
}

std::string otpMethod(const std::string& otpType) {
  if (otpType == "OTP_TYPE_EMAIL") return "email";
  if (otpType == "OTP_TYPE_SMS") return "sms";
  throw invalidArgument("invalid field body.otpType: \"" + otpType +
                        "\" is not OTP_TYPE_EMAIL or OTP_TYPE_SMS");
}

// init_otp with the configuration's OTP, email and SMS settings. V3 answers with the target
// bundle the client encrypts its code to.
json::Object otpInit(const ProxyCall& c, bool encrypted) {
  std::string type = json::requireString(c.body, "otpType", kBody);
  std::string contact = json::requireString(c.body, "contact", kBody);
  requireMethod(c, otpMethod(type), type);
  // What is counted per contact is the mailbox it reaches (victim+1@ and "victim"@ are victim@).
  std::string normalized =
      type == "OTP_TYPE_EMAIL" ? mailboxKey(contact) : validatePhoneNumber(contact, "body.contact");
  c.limits.take(c.limitSettings.otpInitPerIp, c.peer, c.nowMs);
  c.limits.take(c.limitSettings.otpInitPerContact, c.config.configId + " " + normalized, c.nowMs);
  c.limits.take(c.limitSettings.otpInitPerConfig, c.config.configId, c.nowMs);

  const auto& s = c.config.settings;
  json::Object p = json::object();
  p->set("otpType", type);
  p->set("contact", contact);
  auto emailParams = json::optionalObject(raw(c), "emailCustomizationParams", "settings");
  p->set("appName", emailParams ? emailParams->optValue<std::string>("appName", "Signet")
                                : std::string("Signet"));
  p->set("otpLength", s.otpLength);
  p->set("alphanumeric", s.otpAlphanumeric);
  p->set("expirationSeconds", std::to_string(s.otpExpirationSeconds));
  json::Object email = json::object();
  for (const char* key : {"logoUrl", "magicLinkTemplate", "templateVariables", "templateId"})
    copyIfPresent(emailParams, email, key);
  if (raw(c)->has("otpTemplateId")) email->set("templateId", raw(c)->get("otpTemplateId"));
  copyIfPresent(json::optionalObject(c.body, "emailCustomization", kBody), email, "templateId");
  if (email->size() > 0) p->set("emailCustomization", email);
  auto sms = json::optionalObject(raw(c), "smsCustomizationParams", "settings");
  if (sms && sms->size() > 0) p->set("smsCustomization", sms);
  for (const char* key : {"sendFromEmailAddress", "sendFromEmailSenderName", "replyToEmailAddress"})
    copyIfPresent(raw(c), p, key);

  const std::string& parent = c.config.organizationId;
  if (!encrypted)
    return c.coordinator.result("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", parent, p,
                                "initOtpResult");
  return c.coordinator.result("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", parent, p,
                              "initOtpResultV2");
}

json::Object otpInitV1(const ProxyCall& c) {
  return otpInit(c, false);
}
json::Object otpInitV2(const ProxyCall& c) {
  return otpInit(c, true);
}

json::Object otpVerify(const ProxyCall& c, bool encrypted) {
  json::Object p = json::object();
  p->set("otpId", json::requireString(c.body, "otpId", kBody));
  if (encrypted) {
    p->set("encryptedOtpBundle", json::requireString(c.body, "encryptedOtpBundle", kBody));
  } else {
    p->set("otpCode", json::requireString(c.body, "otpCode", kBody));
    // The specification writes the key's field in snake case; the SDKs send camel case.
    auto key = json::optionalString(c.body, "publicKey", kBody);
    if (!key) key = json::optionalString(c.body, "public_key", kBody);
    if (key) p->set("publicKey", *key);
  }
  p->set("expirationSeconds", std::to_string(c.config.settings.verificationTokenExpirationSeconds));
  return c.coordinator.result(
      "verify_otp", encrypted ? "ACTIVITY_TYPE_VERIFY_OTP_V2" : "ACTIVITY_TYPE_VERIFY_OTP",
      c.config.organizationId, p, "verifyOtpResult");
}

json::Object otpVerifyV1(const ProxyCall& c) {
  return otpVerify(c, false);
}
json::Object otpVerifyV2(const ProxyCall& c) {
  return otpVerify(c, true);
}

// The first organization id of a list_suborgs or list_verified_suborgs answer.
std::optional<std::string> firstOrganization(const ProxyCall& c, const std::string& query,
                                             const std::string& filterType,
                                             const std::string& filterValue) {
  json::Object q = json::object();
  q->set("organizationId", c.config.organizationId);
  q->set("filterType", filterType);
  q->set("filterValue", filterValue);
  auto ids = c.coordinator.query(query, q)->getArray("organizationIds");
  if (!ids || ids->size() == 0) return std::nullopt;
  return ids->getElement<std::string>(0);
}

std::string contactFilter(const std::string& verificationType) {
  return verificationType == "OTP_TYPE_SMS" ? "PHONE_NUMBER" : "EMAIL";
}

// The sub-organization a login targets: the one the client names, else the one whose verified
// contact (OTP) or OAuth identity (OIDC) the token carries.
std::string loginOrganization(const ProxyCall& c, const std::string& query,
                              const std::string& filterType, const std::string& filterValue) {
  if (auto given = json::optionalString(c.body, "organizationId", kBody)) return *given;
  auto found = firstOrganization(c, query, filterType, filterValue);
  if (!found)
    throw notFound("no sub-organization of " + c.config.organizationId + " matches the login's " +
                   filterType + "; sign up first");
  return *found;
}

json::Object otpLogin(const ProxyCall& c, bool v2) {
  std::string token = json::requireString(c.body, "verificationToken", kBody);
  json::Object p = json::object();
  p->set("verificationToken", token);
  p->set("publicKey", json::requireString(c.body, "publicKey", kBody));
  p->set("expirationSeconds", std::to_string(c.config.settings.sessionExpirationSeconds));
  p->set("invalidateExisting", json::optionalBool(c.body, "invalidateExisting", kBody, false));
  copyIfPresent(c.body, p, "clientSignature");
  if (auto hex = json::optionalString(c.body, "client_signature", kBody);
      hex && !p->has("clientSignature")) {
    // The specification's form: a hex signature over the verification token by the key given
    // to otp_verify. The login activity checks it as a clientSignature whose message is the
    // token, and then logs in that key only.
    json::Object signature = json::object();
    signature->set("scheme", "CLIENT_SIGNATURE_SCHEME_API_P256");
    signature->set("publicKey", p->getValue<std::string>("publicKey"));
    signature->set("message", token);
    signature->set("signature", *hex);
    p->set("clientSignature", signature);
  }
  if (v2 && !p->has("clientSignature"))
    throw invalidArgument(
        "invalid field body.clientSignature: required by otp_login_v2 (or "
        "client_signature, the hex signature over the verification token)");
  auto claims = jwt::decodeClaims(token);
  if (!claims) throw invalidArgument("invalid field body.verificationToken: not a JWT");
  std::string org =
      loginOrganization(c, "list_verified_suborgs",
                        contactFilter((*claims)->optValue<std::string>("verification_type", "")),
                        (*claims)->optValue<std::string>("contact", ""));
  return c.coordinator.result("otp_login",
                              v2 ? "ACTIVITY_TYPE_OTP_LOGIN_V2" : "ACTIVITY_TYPE_OTP_LOGIN", org, p,
                              "otpLoginResult");
}

json::Object otpLoginV1(const ProxyCall& c) {
  return otpLogin(c, false);
}
json::Object otpLoginV2(const ProxyCall& c) {
  return otpLogin(c, true);
}

json::Object oauthLogin(const ProxyCall& c) {
  requireMethod(c, "oauth", "OAUTH");
  std::string token = json::requireString(c.body, "oidcToken", kBody);
  json::Object p = json::object();
  p->set("oidcToken", token);
  p->set("publicKey", json::requireString(c.body, "publicKey", kBody));
  p->set("expirationSeconds", std::to_string(c.config.settings.sessionExpirationSeconds));
  p->set("invalidateExisting", json::optionalBool(c.body, "invalidateExisting", kBody, false));
  std::string org = loginOrganization(c, "list_suborgs", "OIDC_TOKEN", token);
  return c.coordinator.result("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", org, p,
                              "oauthLoginResult");
}

// The code exchange runs in the coordinator with the credential registered for (provider,
// clientId) in the parent organization.
json::Object oauth2Authenticate(const ProxyCall& c) {
  requireMethod(c, "oauth", "OAUTH");
  std::string provider = json::requireString(c.body, "provider", kBody);
  std::string clientId = json::requireString(c.body, "clientId", kBody);
  json::Object q = json::object();
  q->set("organizationId", c.config.organizationId);
  auto list = c.coordinator.query("list_oauth2_credentials", q)->getArray("oauth2Credentials");
  std::string credentialId;
  for (size_t i = 0; list && i < list->size() && credentialId.empty(); ++i) {
    auto cred = list->getObject(i);
    if (cred->optValue<std::string>("provider", "") == provider &&
        cred->optValue<std::string>("clientId", "") == clientId)
      credentialId = cred->optValue<std::string>("oauth2CredentialId", "");
  }
  if (credentialId.empty())
    throw notFound("organization " + c.config.organizationId + " has no OAuth 2.0 credential for " +
                   provider + " with client id \"" + clientId + "\"");
  json::Object p = json::object();
  p->set("oauth2CredentialId", credentialId);
  for (const char* key : {"authCode", "redirectUri", "codeVerifier", "nonce"})
    p->set(key, json::requireString(c.body, key, kBody));
  return c.coordinator.result("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
                              c.config.organizationId, p, "oauth2AuthenticateResult");
}

// A sub-organization with one root user built from the request, as @turnkey/core's sign-up
// sends it; V7 takes OAuth providers with a token, V8 (signup_v2) also with claims.
json::Object signup(const ProxyCall& c, bool v2) {
  c.limits.take(c.limitSettings.signupPerIp, c.peer, c.nowMs);
  std::string stamp = std::to_string(c.nowMs);
  json::Object user = json::object();
  user->set("userName", json::optionalString(c.body, "userName", kBody).value_or("user-" + stamp));
  copyIfPresent(c.body, user, "userEmail");
  copyIfPresent(c.body, user, "userPhoneNumber");
  for (const char* list : {"apiKeys", "authenticators", "oauthProviders"})
    user->set(list, c.body->has(list) && !c.body->isNull(list)
                        ? Poco::Dynamic::Var(json::requireArray(c.body, list, kBody))
                        : Poco::Dynamic::Var(json::array()));
  json::Array users = json::array();
  users->add(user);
  json::Object p = json::object();
  p->set("subOrganizationName",
         json::optionalString(c.body, "organizationName", kBody).value_or("sub-org-" + stamp));
  p->set("rootUsers", users);
  p->set("rootQuorumThreshold", 1);
  copyIfPresent(c.body, p, "wallet");
  // Sign-up answers carry the coordinator's app proofs (a wallet's address derivations), which
  // clients check themselves.
  p->set("generateAppProofs", true);
  copyIfPresent(c.body, p, "verificationToken");
  copyIfPresent(c.body, p, "clientSignature");
  std::string type =
      v2 ? "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8" : "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7";
  auto activity =
      c.coordinator.activity("create_sub_organization", type, c.config.organizationId, p);
  auto result = activity->getObject("result")->getObject(v2 ? "createSubOrganizationResultV8"
                                                            : "createSubOrganizationResultV7");
  if (!result) throw internalError("sign-up completed without a result");
  json::Object out = json::object();
  out->set("organizationId", result->getValue<std::string>("subOrganizationId"));
  auto rootUserIds = result->getArray("rootUserIds");
  if (rootUserIds && rootUserIds->size() > 0)
    out->set("userId", rootUserIds->getElement<std::string>(0));
  copyIfPresent(result, out, "wallet");
  // App proofs go back as the coordinator made them; the proxy does not check them.
  copyIfPresent(activity, out, "appProofs");
  return out;
}

json::Object signupV1(const ProxyCall& c) {
  return signup(c, false);
}
json::Object signupV2(const ProxyCall& c) {
  return signup(c, true);
}

// With verificationTokenRequiredForGetAccountPii, an EMAIL or PHONE_NUMBER lookup must carry a
// verification token, signed by the coordinator, unexpired, for that very contact.
void requireProofOfContact(const ProxyCall& c, const std::string& filterType,
                           const std::string& value) {
  auto token = json::optionalString(c.body, "verificationToken", kBody);
  if (!token)
    throw permissionDenied("an account lookup by " + filterType +
                           " needs a verificationToken for that contact in this configuration "
                           "(verificationTokenRequiredForGetAccountPii)");
  auto signer = fromHex(c.config.signerPublicKey);
  auto claims =
      signer ? jwt::verifyEs256(*token, *signer, jwt::Hashing::kSingleSha256) : std::nullopt;
  if (!claims) throw invalidArgument("invalid field body.verificationToken: it does not verify");
  auto expires = (*claims)->optValue<std::string>("exp", "0");
  bool live = !expires.empty() && std::all_of(expires.begin(), expires.end(), ::isdigit) &&
              expires.size() < 19 && std::stoll(expires) > c.nowMs;
  std::string type = (*claims)->optValue<std::string>("verification_type", "");
  std::string contact = (*claims)->optValue<std::string>("contact", "");
  bool same = contactFilter(type) == filterType &&
              (filterType == "EMAIL" ? asciiLower(contact) == asciiLower(value) : contact == value);
  if (!live) throw invalidArgument("invalid field body.verificationToken: it has expired");
  if (!same)
    throw permissionDenied("invalid field body.verificationToken: it verifies " + contact +
                           ", not " + value);
}

json::Object account(const ProxyCall& c) {
  std::string filterType = json::requireString(c.body, "filterType", kBody);
  std::string value = json::requireString(c.body, "filterValue", kBody);
  bool pii = filterType == "EMAIL" || filterType == "PHONE_NUMBER";
  if (pii && c.config.settings.verificationTokenRequiredForGetAccountPii)
    requireProofOfContact(c, filterType, value);
  // A lookup that proves the contact finds only sub-organizations that verified it.
  bool verified = pii && c.body->has("verificationToken") && !c.body->isNull("verificationToken");
  auto found =
      firstOrganization(c, verified ? "list_verified_suborgs" : "list_suborgs", filterType, value);
  json::Object out = json::object();
  if (found) out->set("organizationId", *found);
  return out;
}

json::Object walletKitConfig(const ProxyCall& c) {
  const auto& s = c.config.settings;
  std::vector<std::string> providers;
  for (const auto& m : s.allowedAuthMethods)
    if (m != "oauth") providers.push_back(m);
  auto kit = json::optionalObject(s.raw, "walletKitSettings", "settings");
  for (const auto& p : json::optionalStringArray(kit, "enabledSocialProviders", "settings"))
    if (std::find(providers.begin(), providers.end(), p) == providers.end()) providers.push_back(p);
  json::Object out = json::object();
  out->set("enabledProviders", json::stringArray(providers));
  out->set("sessionExpirationSeconds", std::to_string(s.sessionExpirationSeconds));
  out->set("organizationId", c.config.organizationId);
  if (kit) {
    copyIfPresent(kit, out, "oauthClientIds");
    copyIfPresent(kit, out, "oauthRedirectUrl");
  }
  out->set("otpAlphanumeric", s.otpAlphanumeric);
  out->set("otpLength", std::to_string(s.otpLength));
  return out;
}

// No captcha service can be reached here, so there is no Turnstile site key to hand out.
json::Object walletKitClientParams(const ProxyCall&) {
  return json::object();
}

}  // namespace

const std::vector<EndpointSpec>& endpoints() {
  // The fields each request takes, as the auth proxy OpenAPI document lists them. Some are taken
  // and ignored on purpose (docs/auth-proxy.md says which and why): sign-up's userTag, and
  // /v1/account's oidcToken.
  static const std::vector<EndpointSpec> table = [] {
    const std::vector<std::string> signupFields = {
        "userEmail", "userPhoneNumber",  "userTag",
        "userName",  "organizationName", "verificationToken",
        "apiKeys",   "authenticators",   "oauthProviders",
        "wallet",    "clientSignature"};
    const std::vector<std::string> otpInitFields = {"otpType", "contact", "emailCustomization"};
    const std::vector<std::string> loginFields = {"verificationToken", "publicKey",
                                                  "invalidateExisting", "organizationId",
                                                  "clientSignature"};
    std::vector<std::string> specLoginFields = loginFields;
    specLoginFields.push_back("client_signature");  // the specification's form
    // clang-format off
    return std::vector<EndpointSpec>{
        {"/v1/signup",                   signupV1,              signupFields},
        {"/v1/signup_v2",                signupV2,              signupFields},
        {"/v1/otp_init",                 otpInitV1,             otpInitFields},
        {"/v1/otp_init_v2",              otpInitV2,             otpInitFields},
        {"/v1/otp_verify",               otpVerifyV1,           {"otpId", "otpCode", "publicKey", "public_key"}},
        {"/v1/otp_verify_v2",            otpVerifyV2,           {"otpId", "encryptedOtpBundle"}},
        {"/v1/otp_login",                otpLoginV1,            specLoginFields},
        {"/v1/otp_login_v2",             otpLoginV2,            loginFields},
        {"/v1/oauth2_authenticate",      oauth2Authenticate,    {"provider", "authCode", "redirectUri", "codeVerifier", "nonce", "clientId"}},
        {"/v1/oauth_login",              oauthLogin,            {"oidcToken", "publicKey", "invalidateExisting", "organizationId"}},
        {"/v1/account",                  account,               {"filterType", "filterValue", "verificationToken", "oidcToken"}},
        {"/v1/wallet_kit_config",        walletKitConfig,       {}},
        {"/v1/wallet_kit_client_params", walletKitClientParams, {}},
    };
    // clang-format on
  }();
  return table;
}

void checkFields(const EndpointSpec& endpoint, const json::Object& body) {
  for (const auto& name : body->getNames()) {
    if (std::find(endpoint.fields.begin(), endpoint.fields.end(), name) != endpoint.fields.end())
      continue;
    std::string taken;
    for (const auto& f : endpoint.fields) taken += (taken.empty() ? "" : ", ") + f;
    throw invalidArgument("invalid field body." + name + ": " + endpoint.path +
                          " takes no such field (" +
                          (taken.empty() ? "it takes none" : "it takes " + taken) + ")");
  }
}

}  // namespace auth_proxy
