#include <Poco/Net/Context.h>
#include <Poco/Net/MailMessage.h>
#include <Poco/Net/MailRecipient.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureSMTPClientSession.h>
#include <Poco/Net/StringPartSource.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "delivery.hpp"
#include "outbox.hpp"
#include "signet/error.hpp"

namespace sessions {

using namespace signet;

namespace {
// 7bit keeps codes and links verbatim in the message; quoted-printable only when it must.
Poco::Net::MailMessage::ContentTransferEncoding encodingFor(const std::string& text) {
  size_t line = 0;
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80)
      return Poco::Net::MailMessage::ENCODING_QUOTED_PRINTABLE;
    line = c == '\n' ? 0 : line + 1;
    if (line > 900) return Poco::Net::MailMessage::ENCODING_QUOTED_PRINTABLE;
  }
  return Poco::Net::MailMessage::ENCODING_7BIT;
}

void buildMessage(const EmailMessage& m, Poco::Net::MailMessage& mail) {
  using Poco::Net::MailMessage;
  mail.setSender(m.fromName.empty()
                     ? m.fromAddress
                     : MailMessage::encodeWord(m.fromName) + " <" + m.fromAddress + ">");
  mail.addRecipient(Poco::Net::MailRecipient(Poco::Net::MailRecipient::PRIMARY_RECIPIENT, m.to));
  mail.setSubject(MailMessage::encodeWord(m.subject, "UTF-8"));
  if (!m.replyTo.empty()) mail.set("Reply-To", m.replyTo);
  if (m.html.empty()) {
    mail.setContentType("text/plain; charset=UTF-8");
    mail.setContent(m.text, encodingFor(m.text));
    return;
  }
  mail.addPart("", new Poco::Net::StringPartSource(m.text, "text/plain; charset=UTF-8"),
               MailMessage::CONTENT_INLINE, encodingFor(m.text));
  mail.addPart("", new Poco::Net::StringPartSource(m.html, "text/html; charset=UTF-8"),
               MailMessage::CONTENT_INLINE, encodingFor(m.html));
  mail.setContentType("multipart/alternative");
}

std::string smtpPassword(const SmtpSettings& s) {
  if (!s.passwordEnv.empty()) {
    const char* v = std::getenv(s.passwordEnv.c_str());
    if (!v)
      throw Error(Code::kUnavailable,
                  "the SMTP password variable " + s.passwordEnv + " is not set");
    return v;
  }
  if (!s.passwordFile.empty()) {
    std::ifstream in(s.passwordFile);
    std::string line;
    if (!in || !std::getline(in, line))
      throw Error(Code::kUnavailable, "cannot read the SMTP password file " + s.passwordFile);
    return line;
  }
  return {};
}

Poco::Net::Context::Ptr tlsContext(const SmtpSettings& s) {
  using Poco::Net::Context;
  return new Context(Context::TLS_CLIENT_USE, "", "", s.caFile,
                     s.verifyPeer ? Context::VERIFY_RELAXED : Context::VERIFY_NONE, 9,
                     /*loadDefaultCAs=*/true);
}

void sendSmtp(const SmtpSettings& s, Poco::Net::MailMessage& mail) {
  Poco::Net::SecureSMTPClientSession session(s.host, static_cast<Poco::UInt16>(s.port));
  session.setTimeout(Poco::Timespan(s.timeoutSeconds, 0));
  session.login();  // EHLO
  if (s.startTls && !session.startTLS(tlsContext(s)))
    throw Error(Code::kUnavailable, "the SMTP server " + s.host + ":" + std::to_string(s.port) +
                                        " does not offer STARTTLS, which the config requires");
  if (!s.username.empty())
    session.login(Poco::Net::SMTPClientSession::AUTH_PLAIN, s.username, smtpPassword(s));
  session.sendMessage(mail);
  session.close();
}
}  // namespace

std::string mimeText(const EmailMessage& message) {
  Poco::Net::MailMessage mail;
  buildMessage(message, mail);
  std::ostringstream out;
  mail.write(out);
  return out.str();
}

void Delivery::sendEmail(const EmailMessage& message) const {
  const auto& email = settings_.email;
  if (email.transport == "outbox") {
    writeToOutbox(settings_.outboxDir, "eml", mimeText(message));
    return;
  }
  Poco::Net::MailMessage mail;
  buildMessage(message, mail);
  try {
    sendSmtp(email.smtp, mail);
  } catch (const Error&) {
    throw;
  } catch (const Poco::Exception& e) {
    throw Error(Code::kUnavailable, "email delivery to " + message.to + " through " +
                                        email.smtp.host + ":" + std::to_string(email.smtp.port) +
                                        " failed: " + e.displayText());
  } catch (const std::exception& e) {
    throw Error(Code::kUnavailable, "email delivery to " + message.to + " failed: " + e.what());
  }
}

}  // namespace sessions
