// The messages OTP and email auth send, from the request's customization:
// app name, logo URL, magic-link template, template variables, a configured template by id,
// an SMS template, and the sender and reply-to fields. Templates use the Go-template forms
// clients write: {{.OtpCode}}, {{ .AppName }}, {{ index .TemplateVariables "key" }}.
#pragma once

#include <map>
#include <string>

#include "delivery.hpp"
#include "signet/json.hpp"

namespace sessions {

struct Customization {
  std::string appName;
  std::string logoUrl;
  std::string magicLinkTemplate;  // e.g. https://app.example/auth?bundle=%s
  signet::json::Object templateVariables;
  std::string templateId;
  std::string smsTemplate;
  std::string sendFromEmailAddress;
  std::string sendFromEmailSenderName;
  std::string replyToEmailAddress;
};

// Reads the customization fields of an init_otp / init_otp_auth / email_auth intent:
// top-level appName (V2+), emailCustomization{appName?, logoUrl, magicLinkTemplate,
// templateVariables (a JSON string), templateId}, smsCustomization{template}, and the sender
// fields. Checks the sender address against the allowed list. InvalidArgument naming the field.
Customization readCustomization(const signet::json::Object& params, const Settings& settings);

// Replaces the placeholders; values are HTML-escaped when `html`.
std::string renderTemplate(const std::string& text,
                           const std::map<std::string, std::string>& values,
                           const signet::json::Object& templateVariables, bool html);

EmailMessage otpEmail(const Settings& settings, const Customization& c, const std::string& to,
                      const std::string& code, int64_t expiresInSeconds);
SmsMessage otpSms(const Customization& c, const std::string& to, const std::string& code);
enum class EmailPurpose { kSignIn, kRecovery };
EmailMessage credentialEmail(const Settings& settings, const Customization& c,
                             const std::string& to, const std::string& credentialBundle,
                             int64_t expiresInSeconds, EmailPurpose purpose);
// An invitation to join an organization (create_invitations).
EmailMessage invitationEmail(const Settings& settings, const std::string& to,
                             const std::string& receiverName, const std::string& organizationName,
                             const std::string& senderName, const std::string& invitationId);

}  // namespace sessions
