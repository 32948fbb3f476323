// The sessions plugin's settings (plugins.settings.sessions in signet.json). Every field has
// a default; without any, both email and SMS go to the development outbox.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "signet/json.hpp"
#include "signet/public_issuers.hpp"

namespace sessions {

struct SmtpSettings {
  std::string host = "127.0.0.1";
  int port = 587;
  bool startTls = true;  // upgrade with STARTTLS before authenticating
  std::string username;  // empty: no AUTH
  // The password is read from this environment variable or file at send time, never from
  // signet.json, so that the config holds no secret.
  std::string passwordEnv;
  std::string passwordFile;
  std::string caFile;  // extra CA for the server's certificate (a private relay)
  bool verifyPeer = true;
  int timeoutSeconds = 10;
};

struct EmailTemplate {
  std::string subject;
  std::string text;
  std::string html;
};

struct EmailSettings {
  std::string transport = "outbox";  // "smtp" or "outbox"
  SmtpSettings smtp;
  std::string fromAddress = "no-reply@localhost";
  std::string senderName = "Notifications";
  // Addresses a request may name in sendFromEmailAddress; any other is refused.
  std::vector<std::string> allowedFromAddresses;
  std::map<std::string, EmailTemplate> templates;  // by templateId
};

struct SmsSettings {
  std::string transport = "outbox";  // "http" or "outbox"
  std::string url;                   // the provider endpoint (POST JSON {to, body})
  std::string authorizationEnv;      // env var holding the Authorization header value
  int timeoutSeconds = 10;
};

// How OpenID Connect ID tokens are verified (oauth_login, oauth, providers at registration).
// Which issuers are trusted: oidc_verifier.hpp.
struct OidcSettings {
  // When set, the only issuers whose tokens are accepted (beside the gateway's own).
  std::vector<std::string> allowedIssuers;
  // Without allowedIssuers: issuers trusted beside those of stored OAuth providers. Absent from
  // the config: the public providers (signet/public_issuers.hpp), which `signet init` writes.
  std::vector<std::string> trustedIssuers = signet::publicOidcIssuers();
  // Issuers the operator runs on an internal address or over plain HTTP (a test issuer on
  // loopback, a company's own identity provider): trusted, and fetched from any address.
  std::vector<std::string> insecureIssuers;
  // What fetching an issuer's discovery document and keys may cost one request, in all.
  int timeoutSeconds = 5;
  // How long keys are kept when the JWKS answer has no Cache-Control max-age.
  int defaultCacheSeconds = 3600;
  // An unknown kid refreshes an issuer's keys at most this often.
  int refreshIntervalSeconds = 60;
  std::string caFile;  // an extra CA for issuers behind a private CA; the system store otherwise
};

// An OAuth 2.0 provider without OpenID Connect: where the code is exchanged and the user read.
struct OAuth2Endpoints {
  std::string tokenUrl;
  std::string userInfoUrl;
};

struct OAuth2Settings {
  // Defaults: the providers' documented endpoints (developer.x.com OAuth 2.0 with PKCE;
  // discord.com/developers OAuth2).
  OAuth2Endpoints x{"https://api.x.com/2/oauth2/token", "https://api.x.com/2/users/me"};
  OAuth2Endpoints discord{"https://discord.com/api/oauth2/token",
                          "https://discord.com/api/users/@me"};
  bool allowHttp = false;          // plain http:// endpoints (loopback tests only)
  int timeoutSeconds = 10;         // the exchange and the user-info call together
  int tokenLifetimeSeconds = 300;  // of the ID token oauth2_authenticate returns
  std::string caFile;
};

struct Settings {
  EmailSettings email;
  SmsSettings sms;
  OidcSettings oidc;
  OAuth2Settings oauth2;
  std::string outboxDir;  // absolute; default <data dir>/outbox
  std::string defaultAppName = "Signet";
};

// Whether `issuer` is one of `issuers` (an issuer list of OidcSettings).
inline bool listedIn(const std::vector<std::string>& issuers, const std::string& issuer) {
  return std::find(issuers.begin(), issuers.end(), issuer) != issuers.end();
}

// Throws signet::Error naming the field (plugins.settings.sessions.<field>).
Settings parseSettings(const signet::json::Object& settings, const std::string& dataDir);

}  // namespace sessions
