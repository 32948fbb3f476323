#include "messages.hpp"

#include <algorithm>
#include <regex>

#include "signet/error.hpp"

namespace sessions {

using namespace signet;

namespace {
std::string htmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A template from the settings, or the built-in one.
EmailTemplate templateFor(const Settings& settings, const Customization& c,
                          const EmailTemplate& builtin) {
  if (c.templateId.empty()) return builtin;
  auto it = settings.email.templates.find(c.templateId);
  if (it == settings.email.templates.end())
    throw invalidArgument("invalid field parameters.emailCustomization.templateId: \"" +
                          c.templateId +
                          "\" is not a template of this gateway "
                          "(plugins.settings.sessions.email.templates)");
  return it->second;
}

EmailMessage compose(const Settings& settings, const Customization& c, const std::string& to,
                     const EmailTemplate& t, const std::map<std::string, std::string>& values) {
  EmailMessage m;
  m.to = to;
  m.fromAddress =
      c.sendFromEmailAddress.empty() ? settings.email.fromAddress : c.sendFromEmailAddress;
  m.fromName =
      c.sendFromEmailSenderName.empty() ? settings.email.senderName : c.sendFromEmailSenderName;
  m.replyTo = c.replyToEmailAddress;
  m.subject = renderTemplate(t.subject, values, c.templateVariables, false);
  m.text = renderTemplate(t.text, values, c.templateVariables, false);
  if (!t.html.empty()) m.html = renderTemplate(t.html, values, c.templateVariables, true);
  return m;
}

const EmailTemplate kOtpTemplate{
    "{{.AppName}} verification code",
    "Your {{.AppName}} verification code is: {{.OtpCode}}\n\n"
    "It expires in {{.ExpiresInMinutes}} minutes. If you did not ask for it, ignore this "
    "message.\n",
    "<html><body>{{.LogoImage}}<p>Your {{.AppName}} verification code is:</p>"
    "<p style=\"font-size:24px;font-family:monospace\"><b>{{.OtpCode}}</b></p>"
    "<p>It expires in {{.ExpiresInMinutes}} minutes. If you did not ask for it, ignore this "
    "message.</p></body></html>"};

const EmailTemplate kRecoveryTemplate{
    "Recover your {{.AppName}} account",
    "Use this link to recover your {{.AppName}} account: {{.MagicLink}}\n\n"
    "Or paste this recovery bundle into the app:\n{{.CredentialBundle}}\n\n"
    "It expires in {{.ExpiresInMinutes}} minutes. If you did not ask to recover your account, "
    "ignore this message: nothing changes until the bundle is used.\n",
    ""};

const EmailTemplate kInvitationTemplate{
    "{{.SenderName}} invited you to {{.OrganizationName}}",
    "Hello {{.ReceiverName}},\n\n{{.SenderName}} invited you to join the organization "
    "{{.OrganizationName}} on {{.AppName}}.\n\nInvitation: {{.InvitationId}}\n",
    ""};

const EmailTemplate kCredentialTemplate{
    "Sign in to {{.AppName}}",
    "Use this link to sign in to {{.AppName}}: {{.MagicLink}}\n\n"
    "Or paste this credential bundle into the app:\n{{.CredentialBundle}}\n\n"
    "It expires in {{.ExpiresInMinutes}} minutes. If you did not ask for it, ignore this "
    "message.\n",
    ""};
}  // namespace

const Shape<EmailCustomizationParameters>& emailCustomizationShape() {
  using E = EmailCustomizationParameters;
  // A function's static: other files' shapes nest it while their globals are made.
  static const Shape<E> shape = {
      field("appName", &E::appName, {.displayName = true}), field("logoUrl", &E::logoUrl),
      field("magicLinkTemplate", &E::magicLinkTemplate), field("templateId", &E::templateId),
      field("templateVariables", &E::templateVariables)};
  return shape;
}

const Shape<SmsCustomizationParameters>& smsCustomizationShape() {
  static const Shape<SmsCustomizationParameters> shape = {
      field("template", &SmsCustomizationParameters::smsTemplate)};
  return shape;
}

Customization readCustomization(const MessageParameters& p, const Settings& settings) {
  Customization c;
  c.appName = p.appName.value_or("");
  const std::string ef = "parameters.emailCustomization";
  if (const auto& e = p.emailCustomization) {
    if (c.appName.empty()) c.appName = e->appName.value_or("");
    c.logoUrl = e->logoUrl.value_or("");
    c.magicLinkTemplate = e->magicLinkTemplate.value_or("");
    c.templateId = e->templateId.value_or("");
    if (e->templateVariables && !e->templateVariables->empty())
      c.templateVariables = json::parseObject(*e->templateVariables, ef + ".templateVariables");
  }
  if (!c.logoUrl.empty() && c.logoUrl.rfind("https://", 0) != 0 &&
      c.logoUrl.rfind("http://", 0) != 0)
    throw invalidArgument("invalid field " + ef + ".logoUrl: \"" + c.logoUrl +
                          "\" is not an http(s) URL");
  if (const auto& sms = p.smsCustomization) c.smsTemplate = sms->smsTemplate.value_or("");
  if (c.appName.empty()) c.appName = settings.defaultAppName;
  c.sendFromEmailAddress = p.sendFromEmailAddress.value_or("");
  c.sendFromEmailSenderName = p.sendFromEmailSenderName.value_or("");
  c.replyToEmailAddress = p.replyToEmailAddress.value_or("");
  const auto& allowed = settings.email.allowedFromAddresses;
  if (!c.sendFromEmailAddress.empty() &&
      std::find(allowed.begin(), allowed.end(), c.sendFromEmailAddress) == allowed.end())
    throw invalidArgument("invalid field parameters.sendFromEmailAddress: \"" +
                          c.sendFromEmailAddress +
                          "\" is not an allowed sender of this gateway "
                          "(plugins.settings.sessions.email.allowedFromAddresses)");
  if (!c.replyToEmailAddress.empty() && c.replyToEmailAddress.find('@') == std::string::npos)
    throw invalidArgument("invalid field parameters.replyToEmailAddress: \"" +
                          c.replyToEmailAddress + "\" is not an email address");
  return c;
}

std::string renderTemplate(const std::string& text,
                           const std::map<std::string, std::string>& values,
                           const json::Object& templateVariables, bool html) {
  static const std::regex placeholder(
      R"re(\{\{\s*(?:\.([A-Za-z]+)|index\s+\.TemplateVariables\s+"([^"]*)")\s*\}\})re");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), placeholder);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    out += text.substr(last, static_cast<size_t>(m.position()) - last);
    last = static_cast<size_t>(m.position() + m.length());
    std::string value;
    bool raw = false;
    if (m[1].matched) {
      auto v = values.find(m[1].str());
      if (v == values.end()) {
        out += m.str();  // unknown names stay visible rather than vanishing
        continue;
      }
      value = v->second;
      raw = m[1].str() == "LogoImage";  // already HTML
    } else if (templateVariables && templateVariables->has(m[2].str())) {
      value = templateVariables->get(m[2].str()).convert<std::string>();
    }
    out += html && !raw ? htmlEscape(value) : value;
  }
  return out + text.substr(last);
}

EmailMessage otpEmail(const Settings& settings, const Customization& c, const std::string& to,
                      const std::string& code, int64_t expiresInSeconds) {
  std::map<std::string, std::string> values{
      {"OtpCode", code},
      {"AppName", c.appName},
      {"LogoUrl", c.logoUrl},
      {"ExpiresInMinutes", std::to_string((expiresInSeconds + 59) / 60)},
      {"LogoImage", c.logoUrl.empty() ? ""
                                      : "<img src=\"" + htmlEscape(c.logoUrl) +
                                            "\" width=\"340\" height=\"124\" alt=\"\">"}};
  return compose(settings, c, to, templateFor(settings, c, kOtpTemplate), values);
}

SmsMessage otpSms(const Customization& c, const std::string& to, const std::string& code) {
  std::string tpl =
      c.smsTemplate.empty() ? "Your {{.AppName}} code is {{.OtpCode}}" : c.smsTemplate;
  return {to, renderTemplate(tpl, {{"OtpCode", code}, {"AppName", c.appName}}, c.templateVariables,
                             false)};
}

EmailMessage credentialEmail(const Settings& settings, const Customization& c,
                             const std::string& to, const std::string& credentialBundle,
                             int64_t expiresInSeconds, EmailPurpose purpose) {
  std::string link = c.magicLinkTemplate;
  if (auto pos = link.find("%s"); pos != std::string::npos) link.replace(pos, 2, credentialBundle);
  std::map<std::string, std::string> values{
      {"CredentialBundle", credentialBundle},
      {"AppName", c.appName},
      {"LogoUrl", c.logoUrl},
      {"MagicLink", link.empty() ? "(no link configured)" : link},
      {"ExpiresInMinutes", std::to_string((expiresInSeconds + 59) / 60)}};
  return compose(
      settings, c, to,
      templateFor(settings, c,
                  purpose == EmailPurpose::kRecovery ? kRecoveryTemplate : kCredentialTemplate),
      values);
}

EmailMessage invitationEmail(const Settings& settings, const std::string& to,
                             const std::string& receiverName, const std::string& organizationName,
                             const std::string& senderName, const std::string& invitationId) {
  Customization c;
  c.appName = settings.defaultAppName;
  std::map<std::string, std::string> values{{"ReceiverName", receiverName},
                                            {"OrganizationName", organizationName},
                                            {"SenderName", senderName},
                                            {"InvitationId", invitationId},
                                            {"AppName", c.appName}};
  return compose(settings, c, to, kInvitationTemplate, values);
}

}  // namespace sessions
