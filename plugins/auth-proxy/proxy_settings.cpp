#include "proxy_settings.hpp"

#include <Poco/URI.h>

#include <algorithm>
#include <functional>
#include <map>

#include "signet/contacts.hpp"
#include "signet/error.hpp"

namespace auth_proxy {

using namespace signet;

namespace {

const std::string kPath = "parameters";

std::string quoted(const Poco::Dynamic::Var& v) {
  return json::stringify(v);
}

Error bad(const std::string& field, const Poco::Dynamic::Var& value, const std::string& why) {
  std::string shown = quoted(value);
  if (shown.size() > 120) shown = shown.substr(0, 117) + "...";
  return invalidArgument("invalid field " + kPath + "." + field + ": " + shown + " " + why);
}

const std::vector<std::string> kSocialProviders = {"google", "apple", "facebook", "x", "discord"};

int bounded(const std::string& field, int64_t n, int low, int high) {
  if (n < low || n > high)
    throw bad(field, static_cast<Poco::Int64>(n),
              "is out of range: from " + std::to_string(low) + " to " + std::to_string(high));
  return static_cast<int>(n);
}

std::vector<std::string> atMost(const std::string& field, const std::vector<std::string>& list,
                                size_t max) {
  if (list.size() > max)
    throw bad(field, json::stringArray(list), "has more than " + std::to_string(max) + " entries");
  return list;
}

void oneOf(const std::string& field, const std::string& value,
           const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw bad(field, value, "is not one of " + list);
}

std::string httpUrl(const std::string& field, const std::string& value) {
  Poco::URI uri;
  try {
    uri = Poco::URI(value);
  } catch (const std::exception&) {
    throw bad(field, value, "is not a URL");
  }
  if ((uri.getScheme() != "http" && uri.getScheme() != "https") || uri.getHost().empty())
    throw bad(field, value, "is not an http:// or https:// URL");
  return value;
}

std::string shorterThan(const std::string& field, const std::string& value, size_t max) {
  if (value.size() > max)
    throw bad(field, value, "is longer than " + std::to_string(max) + " bytes");
  return value;
}

Poco::Dynamic::Var origins(const std::vector<std::string>& given) {
  auto list = atMost("allowedOrigins", given, 50);
  for (size_t i = 0; i < list.size(); ++i)
    list[i] = checkOrigin(list[i], kPath + ".allowedOrigins[" + std::to_string(i) + "]");
  return json::stringArray(list);
}

Poco::Dynamic::Var methods(const std::vector<std::string>& given) {
  auto list = atMost("allowedAuthMethods", given, 16);
  for (size_t i = 0; i < list.size(); ++i)
    oneOf("allowedAuthMethods[" + std::to_string(i) + "]", list[i], authMethods());
  return json::stringArray(list);
}

// Only the fields the proxy reads are kept (the shape is closed); each is a string (the
// sessions plugin checks the templates when it sends).
Poco::Dynamic::Var emailCustomization(const EmailCustomization& in) {
  json::Object out = json::object();
  auto keep = [&](const char* name, const std::optional<std::string>& value) {
    if (!value) return;
    out->set(name, shorterThan(std::string("emailCustomizationParams.") + name, *value, 8192));
  };
  keep("appName", in.appName);
  keep("logoUrl", in.logoUrl);
  if (in.logoUrl && !in.logoUrl->empty())  // an empty one is stored unchecked, as before
    httpUrl("emailCustomizationParams.logoUrl", *in.logoUrl);
  keep("magicLinkTemplate", in.magicLinkTemplate);
  keep("templateVariables", in.templateVariables);
  keep("templateId", in.templateId);
  return out;
}

Poco::Dynamic::Var smsCustomization(const SmsCustomization& in) {
  json::Object out = json::object();
  if (in.text) out->set("template", shorterThan("smsCustomizationParams.template", *in.text, 1024));
  return out;
}

Poco::Dynamic::Var walletKit(const WalletKitSettings& in) {
  json::Object out = json::object();
  const auto providers = in.enabledSocialProviders.value_or(std::vector<std::string>{});
  for (size_t i = 0; i < providers.size(); ++i)
    oneOf("walletKitSettings.enabledSocialProviders[" + std::to_string(i) + "]", providers[i],
          kSocialProviders);
  out->set("enabledSocialProviders", json::stringArray(providers));
  json::Object ids = json::object();
  if (const auto& given = in.oauthClientIds) {
    auto keep = [&](const char* provider, const std::optional<std::string>& id) {
      if (id) ids->set(provider, *id);
    };
    keep("google", given->google);
    keep("apple", given->apple);
    keep("facebook", given->facebook);
    keep("x", given->x);
    keep("discord", given->discord);
  }
  out->set("oauthClientIds", ids);
  if (in.oauthRedirectUrl)
    out->set("oauthRedirectUrl",
             httpUrl("walletKitSettings.oauthRedirectUrl", *in.oauthRedirectUrl));
  return out;
}

bool captcha(bool enabled) {
  if (enabled)
    throw invalidArgument(
        "invalid field parameters.captchaEnabled: true is not supported: the hosted service "
        "checks a Cloudflare Turnstile token, and no captcha service can be reached from a "
        "self-hosted gateway; leave it false and rely on the proxy's rate limits");
  return false;
}

// One setting applied to the stored object: absent leaves it, null removes it, and a value
// replaces it with what `check` makes of it.
template <class V, class Check>
void apply(json::Object& out, const std::string& name, const Setting<V>& setting, Check check) {
  if (!setting) return;
  if (!*setting)
    out->remove(name);
  else
    out->set(name, check(**setting));
}

using S = ProxySettingsParameters;

const Shape<EmailCustomization>& emailCustomizationShape() {
  using E = EmailCustomization;
  static const auto shape = Shape<E>::closed(
      {field("appName", &E::appName), field("logoUrl", &E::logoUrl),
       field("magicLinkTemplate", &E::magicLinkTemplate),
       field("templateVariables", &E::templateVariables), field("templateId", &E::templateId)});
  return shape;
}
const Shape<SmsCustomization>& smsCustomizationShape() {
  static const auto shape =
      Shape<SmsCustomization>::closed({field("template", &SmsCustomization::text)});
  return shape;
}
const Shape<WalletKitSettings>& walletKitShape() {
  using W = WalletKitSettings;
  using C = OauthClientIds;
  static const auto clientIds = Shape<C>::closed(
      {field("google", &C::google), field("apple", &C::apple), field("facebook", &C::facebook),
       field("x", &C::x), field("discord", &C::discord)});
  static const auto shape =
      Shape<W>::closed({field("enabledSocialProviders", &W::enabledSocialProviders),
                        field("oauthClientIds", &W::oauthClientIds, clientIds),
                        field("oauthRedirectUrl", &W::oauthRedirectUrl)});
  return shape;
}

}  // namespace

// Every field of UpdateAuthProxyConfigIntent, in the protos' order. Each may come as null, which
// removes the stored setting; a name the intent does not have is refused (the shape is closed).
const Shape<ProxySettingsParameters> kUpdateAuthProxyConfig = Shape<S>::closed({
    field("allowedOrigins", &S::allowedOrigins),
    field("allowedAuthMethods", &S::allowedAuthMethods),
    field("sendFromEmailAddress", &S::sendFromEmailAddress),
    field("replyToEmailAddress", &S::replyToEmailAddress),
    field("emailAuthTemplateId", &S::emailAuthTemplateId, {.uuid = true}),
    field("otpTemplateId", &S::otpTemplateId, {.uuid = true}),
    field("emailCustomizationParams", &S::emailCustomizationParams, emailCustomizationShape()),
    field("smsCustomizationParams", &S::smsCustomizationParams, smsCustomizationShape()),
    field("walletKitSettings", &S::walletKitSettings, walletKitShape()),
    field("otpExpirationSeconds", &S::otpExpirationSeconds, {.decimal = true}),
    field("verificationTokenExpirationSeconds", &S::verificationTokenExpirationSeconds,
          {.decimal = true}),
    field("sessionExpirationSeconds", &S::sessionExpirationSeconds, {.decimal = true}),
    field("otpAlphanumeric", &S::otpAlphanumeric),
    field("otpLength", &S::otpLength, {.decimal = true}),
    field("sendFromEmailSenderName", &S::sendFromEmailSenderName),
    field("verificationTokenRequiredForGetAccountPii",
          &S::verificationTokenRequiredForGetAccountPii),
    field("socialLinkingClientIds", &S::socialLinkingClientIds),
    field("captchaEnabled", &S::captchaEnabled),
});

json::Object applySettings(const json::Object& stored, const ProxySettingsParameters& p) {
  json::Object out = json::parseObject(json::stringify(stored), "stored settings");
  auto email = [](const char* name) {
    return [name](const std::string& v) { return validateEmail(v, kPath + "." + name); };
  };
  auto same = [](const auto& v) { return v; };
  auto within = [](const char* name, int low, int high) {
    return [=](int64_t n) { return bounded(name, n, low, high); };
  };
  apply(out, "allowedOrigins", p.allowedOrigins, origins);
  apply(out, "allowedAuthMethods", p.allowedAuthMethods, methods);
  apply(out, "sendFromEmailAddress", p.sendFromEmailAddress, email("sendFromEmailAddress"));
  apply(out, "replyToEmailAddress", p.replyToEmailAddress, email("replyToEmailAddress"));
  apply(out, "emailAuthTemplateId", p.emailAuthTemplateId, same);
  apply(out, "otpTemplateId", p.otpTemplateId, same);
  apply(out, "emailCustomizationParams", p.emailCustomizationParams, emailCustomization);
  apply(out, "smsCustomizationParams", p.smsCustomizationParams, smsCustomization);
  apply(out, "walletKitSettings", p.walletKitSettings, walletKit);
  apply(out, "otpExpirationSeconds", p.otpExpirationSeconds,
        within("otpExpirationSeconds", 1, 600));
  apply(out, "verificationTokenExpirationSeconds", p.verificationTokenExpirationSeconds,
        within("verificationTokenExpirationSeconds", 1, 86400));
  apply(out, "sessionExpirationSeconds", p.sessionExpirationSeconds,
        within("sessionExpirationSeconds", 1, 31536000));
  apply(out, "otpAlphanumeric", p.otpAlphanumeric, same);
  apply(out, "otpLength", p.otpLength, within("otpLength", 6, 9));
  apply(out, "sendFromEmailSenderName", p.sendFromEmailSenderName,
        [](const std::string& v) { return shorterThan("sendFromEmailSenderName", v, 100); });
  apply(out, "verificationTokenRequiredForGetAccountPii",
        p.verificationTokenRequiredForGetAccountPii, same);
  apply(out, "socialLinkingClientIds", p.socialLinkingClientIds,
        [](const std::vector<std::string>& v) {
          return json::stringArray(atMost("socialLinkingClientIds", v, 20));
        });
  apply(out, "captchaEnabled", p.captchaEnabled, captcha);
  return out;
}

const std::vector<std::string>& authMethods() {
  static const std::vector<std::string> m = {"email",  "sms",   "passkey",  "wallet", "oauth",
                                             "google", "apple", "facebook", "x",      "discord"};
  return m;
}

std::string checkOrigin(const std::string& origin, const std::string& field) {
  if (origin == "*") return origin;
  auto refuse = [&](const std::string& why) {
    return invalidArgument("invalid field " + field + ": \"" + origin + "\" " + why);
  };
  if (origin.find('*') != std::string::npos)
    throw refuse(
        "holds a partial wildcard, which is not supported: list each origin exactly, or \"*\" "
        "alone for every origin");
  Poco::URI uri;
  try {
    uri = Poco::URI(origin);
  } catch (const std::exception&) {
    throw refuse("is not an origin (scheme://host[:port])");
  }
  if ((uri.getScheme() != "http" && uri.getScheme() != "https") || uri.getHost().empty())
    throw refuse("is not an http:// or https:// origin");
  if (!uri.getPath().empty() || !uri.getRawQuery().empty() || !uri.getFragment().empty() ||
      !uri.getUserInfo().empty() || origin.back() == '/')
    throw refuse("is not an exact origin: it must be scheme://host[:port], nothing after it");
  return origin;
}

bool methodAllowed(const EffectiveSettings& s, const std::string& method) {
  return std::find(s.allowedAuthMethods.begin(), s.allowedAuthMethods.end(), method) !=
         s.allowedAuthMethods.end();
}

EffectiveSettings effectiveSettings(const json::Object& stored) {
  EffectiveSettings s;
  s.raw = stored;
  s.allowedOrigins = json::optionalStringArray(stored, "allowedOrigins", "settings");
  if (s.allowedOrigins.empty()) s.allowedOrigins = {"*"};
  s.allowedAuthMethods = json::optionalStringArray(stored, "allowedAuthMethods", "settings");
  if (s.allowedAuthMethods.empty()) s.allowedAuthMethods = authMethods();
  auto integer = [&](const char* key, int fallback) {
    return stored->has(key) ? stored->getValue<int>(key) : fallback;
  };
  s.otpLength = integer("otpLength", s.otpLength);
  s.otpExpirationSeconds = integer("otpExpirationSeconds", s.otpExpirationSeconds);
  s.verificationTokenExpirationSeconds =
      integer("verificationTokenExpirationSeconds", s.verificationTokenExpirationSeconds);
  s.sessionExpirationSeconds = integer("sessionExpirationSeconds", s.sessionExpirationSeconds);
  s.otpAlphanumeric = json::optionalBool(stored, "otpAlphanumeric", "settings", true);
  s.verificationTokenRequiredForGetAccountPii =
      json::optionalBool(stored, "verificationTokenRequiredForGetAccountPii", "settings", false);
  return s;
}

}  // namespace auth_proxy
