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

int boundedInt(const json::Object& o, const std::string& key, int low, int high) {
  auto v = o->get(key);
  bool whole = v.isInteger() || (v.isString() && !v.extract<std::string>().empty() &&
                                 std::all_of(v.extract<std::string>().begin(),
                                             v.extract<std::string>().end(), ::isdigit));
  if (!whole) throw bad(key, v, "is not a whole number");
  long long n =
      v.isString() ? std::stoll(v.extract<std::string>().substr(0, 12)) : v.convert<long long>();
  if (n < low || n > high)
    throw bad(key, v,
              "is out of range: from " + std::to_string(low) + " to " + std::to_string(high));
  return static_cast<int>(n);
}

std::vector<std::string> stringList(const json::Object& o, const std::string& key, size_t max) {
  auto list = json::optionalStringArray(o, key, kPath);
  if (list.size() > max)
    throw bad(key, o->get(key), "has more than " + std::to_string(max) + " entries");
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

const std::vector<std::string> kSocialProviders = {"google", "apple", "facebook", "x", "discord"};

using Check = std::function<Poco::Dynamic::Var(const json::Object& intent, const std::string& key)>;

Check text(size_t maxLength) {
  return [maxLength](const json::Object& o, const std::string& key) -> Poco::Dynamic::Var {
    auto v = json::optionalString(o, key, kPath).value_or("");
    if (v.size() > maxLength)
      throw bad(key, v, "is longer than " + std::to_string(maxLength) + " bytes");
    return v;
  };
}
Check email() {
  return [](const json::Object& o, const std::string& key) -> Poco::Dynamic::Var {
    return validateEmail(json::requireString(o, key, kPath), kPath + "." + key);
  };
}
Check uuid() {
  return [](const json::Object& o, const std::string& key) -> Poco::Dynamic::Var {
    return json::requireUuid(o, key, kPath);
  };
}
Check integer(int low, int high) {
  return [low, high](const json::Object& o, const std::string& key) -> Poco::Dynamic::Var {
    return boundedInt(o, key, low, high);
  };
}
Check boolean() {
  return [](const json::Object& o, const std::string& key) -> Poco::Dynamic::Var {
    return json::optionalBool(o, key, kPath, false);
  };
}

Poco::Dynamic::Var origins(const json::Object& o, const std::string& key) {
  auto list = stringList(o, key, 50);
  for (size_t i = 0; i < list.size(); ++i)
    list[i] = checkOrigin(list[i], kPath + "." + key + "[" + std::to_string(i) + "]");
  return json::stringArray(list);
}

Poco::Dynamic::Var methods(const json::Object& o, const std::string& key) {
  auto list = stringList(o, key, 16);
  for (size_t i = 0; i < list.size(); ++i)
    oneOf(key + "[" + std::to_string(i) + "]", list[i], authMethods());
  return json::stringArray(list);
}

Poco::Dynamic::Var clientIds(const json::Object& o, const std::string& key) {
  return json::stringArray(stringList(o, key, 20));
}

// Only the fields the proxy reads are kept; each is a string (the sessions plugin checks the
// templates when it sends).
Poco::Dynamic::Var emailCustomization(const json::Object& o, const std::string& key) {
  auto in = json::optionalObject(o, key, kPath);
  json::Object out = json::object();
  if (!in) return out;
  for (const auto& name : in->getNames()) {
    oneOf(key + "." + name, name,
          {"appName", "logoUrl", "magicLinkTemplate", "templateVariables", "templateId"});
    auto value = json::optionalString(in, name, kPath + "." + key);
    if (!value) continue;
    if (value->size() > 8192) throw bad(key + "." + name, *value, "is longer than 8192 bytes");
    if (name == "logoUrl" && !value->empty()) httpUrl(key + "." + name, *value);
    out->set(name, *value);
  }
  return out;
}

Poco::Dynamic::Var smsCustomization(const json::Object& o, const std::string& key) {
  auto in = json::optionalObject(o, key, kPath);
  json::Object out = json::object();
  if (!in) return out;
  for (const auto& name : in->getNames()) oneOf(key + "." + name, name, {"template"});
  if (auto t = json::optionalString(in, "template", kPath + "." + key)) {
    if (t->size() > 1024) throw bad(key + ".template", *t, "is longer than 1024 bytes");
    out->set("template", *t);
  }
  return out;
}

Poco::Dynamic::Var walletKit(const json::Object& o, const std::string& key) {
  auto in = json::optionalObject(o, key, kPath);
  json::Object out = json::object();
  if (!in) return out;
  std::string path = key + ".";
  for (const auto& name : in->getNames())
    oneOf(path + name, name, {"enabledSocialProviders", "oauthClientIds", "oauthRedirectUrl"});
  auto providers = json::optionalStringArray(in, "enabledSocialProviders", kPath + "." + key);
  for (size_t i = 0; i < providers.size(); ++i)
    oneOf(path + "enabledSocialProviders[" + std::to_string(i) + "]", providers[i],
          kSocialProviders);
  out->set("enabledSocialProviders", json::stringArray(providers));
  json::Object ids = json::object();
  if (auto given = json::optionalObject(in, "oauthClientIds", kPath + "." + key))
    for (const auto& name : given->getNames()) {
      oneOf(path + "oauthClientIds." + name, name, kSocialProviders);
      ids->set(name, json::requireString(given, name, kPath + "." + path + "oauthClientIds"));
    }
  out->set("oauthClientIds", ids);
  if (auto url = json::optionalString(in, "oauthRedirectUrl", kPath + "." + key))
    out->set("oauthRedirectUrl", httpUrl(path + "oauthRedirectUrl", *url));
  return out;
}

Poco::Dynamic::Var captcha(const json::Object& o, const std::string& key) {
  if (json::optionalBool(o, key, kPath, false))
    throw invalidArgument(
        "invalid field parameters.captchaEnabled: true is not supported: the hosted service "
        "checks a Cloudflare Turnstile token, and no captcha service can be reached from a "
        "self-hosted gateway; leave it false and rely on the proxy's rate limits");
  return false;
}

// Every field of UpdateAuthProxyConfigIntent, in the protos' order, with its check.
const std::vector<std::pair<std::string, Check>>& fields() {
  static const std::vector<std::pair<std::string, Check>> table = {
      {"allowedOrigins", origins},
      {"allowedAuthMethods", methods},
      {"sendFromEmailAddress", email()},
      {"replyToEmailAddress", email()},
      {"emailAuthTemplateId", uuid()},
      {"otpTemplateId", uuid()},
      {"emailCustomizationParams", emailCustomization},
      {"smsCustomizationParams", smsCustomization},
      {"walletKitSettings", walletKit},
      {"otpExpirationSeconds", integer(1, 600)},
      {"verificationTokenExpirationSeconds", integer(1, 86400)},
      {"sessionExpirationSeconds", integer(1, 31536000)},
      {"otpAlphanumeric", boolean()},
      {"otpLength", integer(6, 9)},
      {"sendFromEmailSenderName", text(100)},
      {"verificationTokenRequiredForGetAccountPii", boolean()},
      {"socialLinkingClientIds", clientIds},
      {"captchaEnabled", captcha},
  };
  return table;
}

}  // namespace

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

json::Object applySettings(const json::Object& stored, const json::Object& intent) {
  for (const auto& name : intent->getNames()) {
    bool known = false;
    for (const auto& [field, check] : fields()) known |= field == name;
    if (!known)
      throw invalidArgument("invalid field parameters." + name +
                            ": update_auth_proxy_config has no such field");
  }
  json::Object out = json::parseObject(json::stringify(stored), "stored settings");
  for (const auto& [field, check] : fields()) {
    if (!intent->has(field)) continue;
    if (intent->isNull(field)) {
      out->remove(field);
      continue;
    }
    out->set(field, check(intent, field));
  }
  return out;
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
