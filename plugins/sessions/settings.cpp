#include "settings.hpp"

#include <filesystem>

#include "signet/error.hpp"

namespace sessions {

using namespace signet;

namespace {
const std::string kRoot = "plugins.settings.sessions";

int positiveInt(const json::Object& o, const std::string& key, const std::string& path,
                int fallback) {
  auto v = json::optionalInt64String(o, key, path);
  if (!v) return fallback;
  if (*v <= 0 || *v > 65535)
    throw invalidArgument("invalid field " + path + "." + key + ": must be 1 to 65535, got " +
                          std::to_string(*v));
  return static_cast<int>(*v);
}

std::string oneOf(const json::Object& o, const std::string& key, const std::string& path,
                  const std::string& fallback, const std::vector<std::string>& allowed) {
  std::string v = json::optionalString(o, key, path).value_or(fallback);
  for (const auto& a : allowed)
    if (v == a) return v;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "\"" : " or \"") + a + "\"";
  throw invalidArgument("invalid field " + path + "." + key + ": \"" + v + "\" (expected " + list +
                        ")");
}

SmtpSettings parseSmtp(const json::Object& o, const std::string& path) {
  SmtpSettings s;
  s.host = json::optionalString(o, "host", path).value_or(s.host);
  s.port = positiveInt(o, "port", path, s.port);
  s.startTls = json::optionalBool(o, "startTls", path, s.startTls);
  s.username = json::optionalString(o, "username", path).value_or("");
  s.passwordEnv = json::optionalString(o, "passwordEnv", path).value_or("");
  s.passwordFile = json::optionalString(o, "passwordFile", path).value_or("");
  if (o->has("password"))
    throw invalidArgument("invalid field " + path +
                          ".password: the SMTP password is not kept in the config; name an "
                          "environment variable (passwordEnv) or a 0600 file (passwordFile)");
  s.caFile = json::optionalString(o, "caFile", path).value_or("");
  s.verifyPeer = json::optionalBool(o, "verifyPeer", path, s.verifyPeer);
  s.timeoutSeconds = positiveInt(o, "timeoutSeconds", path, s.timeoutSeconds);
  return s;
}

EmailSettings parseEmail(const json::Object& o, const std::string& path) {
  EmailSettings e;
  e.transport = oneOf(o, "transport", path, e.transport, {"smtp", "outbox"});
  if (auto smtp = json::optionalObject(o, "smtp", path)) e.smtp = parseSmtp(smtp, path + ".smtp");
  e.fromAddress = json::optionalString(o, "fromAddress", path).value_or(e.fromAddress);
  e.senderName = json::optionalString(o, "senderName", path).value_or(e.senderName);
  e.allowedFromAddresses = json::optionalStringArray(o, "allowedFromAddresses", path);
  if (auto templates = json::optionalObject(o, "templates", path))
    for (const auto& id : templates->getNames()) {
      auto t = json::requireObject(templates, id, path + ".templates");
      const std::string tp = path + ".templates." + id;
      e.templates[id] = {json::requireString(t, "subject", tp), json::requireString(t, "text", tp),
                         json::optionalString(t, "html", tp).value_or("")};
    }
  return e;
}

SmsSettings parseSms(const json::Object& o, const std::string& path) {
  SmsSettings s;
  s.transport = oneOf(o, "transport", path, s.transport, {"http", "outbox"});
  s.url = json::optionalString(o, "url", path).value_or("");
  if (s.transport == "http" && s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0)
    throw invalidArgument("invalid field " + path + ".url: \"" + s.url +
                          "\" (the SMS provider endpoint must be an http:// or https:// URL)");
  s.authorizationEnv = json::optionalString(o, "authorizationEnv", path).value_or("");
  s.timeoutSeconds = positiveInt(o, "timeoutSeconds", path, s.timeoutSeconds);
  return s;
}
OidcSettings parseOidc(const json::Object& o, const std::string& path) {
  OidcSettings s;
  s.allowedIssuers = json::optionalStringArray(o, "allowedIssuers", path);
  if (o->has("trustedIssuers"))
    s.trustedIssuers = json::optionalStringArray(o, "trustedIssuers", path);
  for (const auto& issuer : s.trustedIssuers)
    if (issuer.rfind("https://", 0) != 0)
      throw invalidArgument("invalid field " + path + ".trustedIssuers: \"" + issuer +
                            "\" is not an https:// URL (an issuer on plain HTTP goes in "
                            "insecureIssuers)");
  s.insecureIssuers = json::optionalStringArray(o, "insecureIssuers", path);
  for (const auto& issuer : s.insecureIssuers)
    if (issuer.rfind("http://", 0) != 0 && issuer.rfind("https://", 0) != 0)
      throw invalidArgument("invalid field " + path + ".insecureIssuers: \"" + issuer +
                            "\" is not an http:// or https:// URL");
  s.timeoutSeconds = positiveInt(o, "timeoutSeconds", path, s.timeoutSeconds);
  s.defaultCacheSeconds = positiveInt(o, "defaultCacheSeconds", path, s.defaultCacheSeconds);
  s.refreshIntervalSeconds =
      positiveInt(o, "refreshIntervalSeconds", path, s.refreshIntervalSeconds);
  s.caFile = json::optionalString(o, "caFile", path).value_or("");
  return s;
}
OAuth2Endpoints parseEndpoints(const json::Object& o, const std::string& path, OAuth2Endpoints e) {
  e.tokenUrl = json::optionalString(o, "tokenUrl", path).value_or(e.tokenUrl);
  e.userInfoUrl = json::optionalString(o, "userInfoUrl", path).value_or(e.userInfoUrl);
  return e;
}

OAuth2Settings parseOAuth2(const json::Object& o, const std::string& path) {
  OAuth2Settings s;
  if (auto x = json::optionalObject(o, "x", path)) s.x = parseEndpoints(x, path + ".x", s.x);
  if (auto d = json::optionalObject(o, "discord", path))
    s.discord = parseEndpoints(d, path + ".discord", s.discord);
  s.allowHttp = json::optionalBool(o, "allowHttp", path, s.allowHttp);
  s.timeoutSeconds = positiveInt(o, "timeoutSeconds", path, s.timeoutSeconds);
  s.tokenLifetimeSeconds = positiveInt(o, "tokenLifetimeSeconds", path, s.tokenLifetimeSeconds);
  s.caFile = json::optionalString(o, "caFile", path).value_or("");
  return s;
}
}  // namespace

Settings parseSettings(const json::Object& o, const std::string& dataDir) {
  Settings s;
  if (auto email = json::optionalObject(o, "email", kRoot))
    s.email = parseEmail(email, kRoot + ".email");
  if (auto sms = json::optionalObject(o, "sms", kRoot)) s.sms = parseSms(sms, kRoot + ".sms");
  if (auto oidc = json::optionalObject(o, "oidc", kRoot)) s.oidc = parseOidc(oidc, kRoot + ".oidc");
  if (auto oauth2 = json::optionalObject(o, "oauth2", kRoot))
    s.oauth2 = parseOAuth2(oauth2, kRoot + ".oauth2");
  std::filesystem::path outbox = json::optionalString(o, "outboxDir", kRoot).value_or("outbox");
  s.outboxDir = (outbox.is_absolute() ? outbox : std::filesystem::path(dataDir) / outbox).string();
  s.defaultAppName = json::optionalString(o, "defaultAppName", kRoot).value_or(s.defaultAppName);
  return s;
}

}  // namespace sessions
