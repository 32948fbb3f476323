#include "message_preview.hpp"

#include "messages.hpp"

namespace sessions {

using namespace signet;

namespace {
// A sample code of the configured shape, the same on every preview so that it reads as one.
std::string sampleCode(int length, bool alphanumeric) {
  const std::string digits = "123456789";
  const std::string mixed = "A1B2C3D4E";
  return (alphanumeric ? mixed : digits).substr(0, static_cast<size_t>(length));
}

// The customization fields of an intent, which the preview takes at the top of its body.
const Shape<MessageParameters>& previewShape() {
  using P = MessageParameters;
  static const Shape<P> shape = {
      field("appName", &P::appName, {.displayName = true}),
      field("emailCustomization", &P::emailCustomization, emailCustomizationShape()),
      field("smsCustomization", &P::smsCustomization, smsCustomizationShape()),
      field("sendFromEmailAddress", &P::sendFromEmailAddress),
      field("sendFromEmailSenderName", &P::sendFromEmailSenderName, {.displayName = true}),
      field("replyToEmailAddress", &P::replyToEmailAddress)};
  return shape;
}
}  // namespace

json::Object previewOtpMessage(const PluginState& state, RequestContext&,
                               const json::Object& body) {
  Customization c = readCustomization(previewShape().read(body), state.settings);
  int length = json::optionalIntInRange(body, "otpLength", "", 9, 6, 9);
  bool alphanumeric = json::optionalBool(body, "alphanumeric", "", true);
  int expires = json::optionalIntInRange(body, "expirationSeconds", "", 300, 1, 600);
  std::string code = sampleCode(length, alphanumeric);

  EmailMessage m = otpEmail(state.settings, c, "user@example.com", code, expires);
  json::Object email = json::object();
  email->set("fromAddress", m.fromAddress);
  email->set("fromName", m.fromName);
  email->set("replyTo", m.replyTo);
  email->set("subject", m.subject);
  email->set("text", m.text);
  email->set("html", m.html);
  json::Object sms = json::object();
  sms->set("text", otpSms(c, "+15555550100", code).body);
  json::Object out = json::object();
  out->set("sampleCode", code);
  out->set("email", email);
  out->set("sms", sms);
  return out;
}

}  // namespace sessions
