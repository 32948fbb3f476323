// Sends what the OTP and email-auth activities deliver: email through SMTP (Poco, with
// STARTTLS and AUTH), SMS through an HTTP provider, or, in development mode, files in the
// outbox folder. A failure throws signet::Error (Unavailable) naming the recipient and the
// cause; the activity then fails and its code is rolled back with it.
#pragma once

#include <string>

#include "email_events.hpp"
#include "settings.hpp"

namespace sessions {

struct EmailMessage {
  std::string to;
  std::string fromAddress;
  std::string fromName;
  std::string replyTo;  // empty: none
  std::string subject;
  std::string text;
  std::string html;  // empty: text only
};

struct SmsMessage {
  std::string to;  // E.164
  std::string body;
};

class Delivery {
 public:
  explicit Delivery(const Settings& settings) : settings_(settings) {}
  // `report`, when given, gets what the transport reported, whether it returns or throws.
  void sendEmail(const EmailMessage& message, EmailReport* report = nullptr) const;
  void sendSms(const SmsMessage& message) const;

 private:
  const Settings& settings_;
};

// The MIME text of a message (what SMTP sends and the outbox keeps).
std::string mimeText(const EmailMessage& message, const std::string& messageId = {});

}  // namespace sessions
