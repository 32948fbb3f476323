// The messages OTP and email auth send, from the request's customization:
// app name, logo URL, magic-link template, template variables, a configured template by id,
// an SMS template, and the sender and reply-to fields. Templates use the Go-template forms
// clients write: {{.OtpCode}}, {{ .AppName }}, {{ index .TemplateVariables "key" }}.
#pragma once

#include <map>
#include <string>

#include "delivery.hpp"
#include "signet/json.hpp"
#include "signet/typed_parameters.hpp"

namespace sessions {

struct EmailCustomizationParameters {
  std::optional<std::string> appName, logoUrl, magicLinkTemplate, templateId;
  std::optional<std::string> templateVariables;  // a JSON object, as a string
};
struct SmsCustomizationParameters {
  std::optional<std::string> smsTemplate;  // "template"
};
// The intent of an activity that sends a message: init_otp, init_otp_auth, email_auth and
// init_user_email_recovery. Each shape (otp.hpp) reads the fields its activity has.
struct MessageParameters {
  // Where it goes: init_otp and init_otp_auth's code, or email_auth and recovery's credential.
  std::string otpType, contact;
  std::string email, targetPublicKey;
  std::optional<std::string> apiKeyName;
  std::optional<bool> invalidateExisting;
  std::optional<int64_t> expirationSeconds, otpLength;
  std::optional<bool> alphanumeric;
  std::optional<std::string> userIdentifier;
  // How it looks (readCustomization).
  std::optional<std::string> appName;
  std::optional<EmailCustomizationParameters> emailCustomization;
  std::optional<SmsCustomizationParameters> smsCustomization;
  std::optional<std::string> sendFromEmailAddress, sendFromEmailSenderName, replyToEmailAddress;
};
// The customization fields' shapes, for the shapes of the activities above and the preview.
const signet::Shape<EmailCustomizationParameters>& emailCustomizationShape();
const signet::Shape<SmsCustomizationParameters>& smsCustomizationShape();

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

// The customization of an intent: top-level appName, emailCustomization{appName?,
// logoUrl, magicLinkTemplate, templateVariables (a JSON string), templateId},
// smsCustomization{template}, and the sender fields. Checks the logo URL, the template
// variables and the sender address against the allowed list. InvalidArgument naming the field.
Customization readCustomization(const MessageParameters& params, const Settings& settings);

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
