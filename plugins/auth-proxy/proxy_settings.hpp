// The settings of one proxy configuration: the fields of update_auth_proxy_config
// (UpdateAuthProxyConfigIntent in the public API's protos), checked one by one. They are kept
// as one JSON object with the intent's field names, so that what the operator sent is what
// `show` prints and what the proxy reads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/json.hpp"
#include "signet/typed_parameters.hpp"

namespace auth_proxy {

// A setting as update_auth_proxy_config sends it: absent (leave it), null (remove it), or a value.
template <class V>
using Setting = std::optional<std::optional<V>>;

struct EmailCustomization {
  std::optional<std::string> appName, logoUrl, magicLinkTemplate, templateVariables, templateId;
};
struct SmsCustomization {
  std::optional<std::string> text;  // "template"
};
struct OauthClientIds {
  std::optional<std::string> google, apple, facebook, x, discord;
};
struct WalletKitSettings {
  std::optional<std::vector<std::string>> enabledSocialProviders;
  std::optional<OauthClientIds> oauthClientIds;
  std::optional<std::string> oauthRedirectUrl;
};
// UpdateAuthProxyConfigIntent, field by field.
struct ProxySettingsParameters {
  Setting<std::vector<std::string>> allowedOrigins, allowedAuthMethods;
  Setting<std::string> sendFromEmailAddress, replyToEmailAddress, emailAuthTemplateId,
      otpTemplateId;
  Setting<EmailCustomization> emailCustomizationParams;
  Setting<SmsCustomization> smsCustomizationParams;
  Setting<WalletKitSettings> walletKitSettings;
  Setting<int64_t> otpExpirationSeconds, verificationTokenExpirationSeconds,
      sessionExpirationSeconds;
  Setting<bool> otpAlphanumeric;
  Setting<int64_t> otpLength;
  Setting<std::string> sendFromEmailSenderName;
  Setting<bool> verificationTokenRequiredForGetAccountPii;
  Setting<std::vector<std::string>> socialLinkingClientIds;
  Setting<bool> captchaEnabled;
};
// Its shape, closed at every level: a misspelled setting is refused, not ignored.
extern const signet::Shape<ProxySettingsParameters> kUpdateAuthProxyConfig;

// `stored` with every setting of `intent` applied (a value replaces the stored one; null removes
// it). InvalidArgument naming the field and its value for a value out of its range or set;
// nothing is changed then.
signet::json::Object applySettings(const signet::json::Object& stored,
                                   const ProxySettingsParameters& intent);

// The exact origin a browser sends ("https://app.example.com", "http://127.0.0.1:5173"), or
// "*". InvalidArgument naming `field` for a path, a partial wildcard, or another scheme.
std::string checkOrigin(const std::string& origin, const std::string& field);

// The settings as the proxy reads them, with the defaults applied.
struct EffectiveSettings {
  std::vector<std::string> allowedOrigins;      // "*" when unset
  std::vector<std::string> allowedAuthMethods;  // every method when unset
  int otpLength = 9;
  bool otpAlphanumeric = true;
  int otpExpirationSeconds = 300;
  int verificationTokenExpirationSeconds = 3600;
  int sessionExpirationSeconds = 900;
  bool verificationTokenRequiredForGetAccountPii = false;
  signet::json::Object raw;  // the stored object
};
EffectiveSettings effectiveSettings(const signet::json::Object& stored);

// The methods allowedAuthMethods may name (the wallet kit's provider names, and "oauth" for
// every OpenID Connect and OAuth 2.0 login).
const std::vector<std::string>& authMethods();
bool methodAllowed(const EffectiveSettings& s, const std::string& method);

}  // namespace auth_proxy
