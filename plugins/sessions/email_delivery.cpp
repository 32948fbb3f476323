#include <Poco/Net/Context.h>
#include <Poco/Net/MailMessage.h>
#include <Poco/Net/MailRecipient.h>
#include <Poco/Net/MailStream.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SMTPClientSession.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/SocketStream.h>
#include <Poco/Net/StringPartSource.h>
#include <sys/socket.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "delivery.hpp"
#include "outbox.hpp"
#include "signet/crypto.hpp"
#include "signet/egress.hpp"
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

void buildMessage(const EmailMessage& m, Poco::Net::MailMessage& mail,
                  const std::string& messageId = {}) {
  using Poco::Net::MailMessage;
  if (!messageId.empty()) mail.set("Message-ID", "<" + messageId + ">");
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

// The relay's answer: its status (250, 451, 550, ...) and its whole reply line(s).
struct SmtpReply {
  int status = 0;
  std::string text;
};

// Poco's SMTP session over a socket we connected (to an address the egress policy resolved),
// with STARTTLS checking the certificate against the relay's configured name: Poco's own
// SecureSMTPClientSession knows no name when it is given a socket.
class RelaySession : public Poco::Net::SMTPClientSession {
 public:
  RelaySession(const Poco::Net::StreamSocket& socket, std::string host)
      : SMTPClientSession(socket), host_(std::move(host)) {}
  bool startTls(Poco::Net::Context::Ptr context) {
    std::string response;
    if (!isPositiveCompletion(sendCommand("STARTTLS", response))) return false;
    socket() = Poco::Net::SecureStreamSocket::attach(socket(), host_, context);
    return true;
  }
  // MAIL, RCPT and DATA one at a time, as Poco's sendMessage sends them, but keeping the reply
  // that decided: the first refusal, or the relay's answer to the message itself.
  SmtpReply send(const Poco::Net::MailMessage& mail, const std::string& from,
                 const std::string& to) {
    SmtpReply reply;
    reply.status = sendCommand("MAIL FROM:", "<" + from + ">", reply.text);
    if (!isPositiveCompletion(reply.status)) return reply;
    reply.status = sendCommand("RCPT TO:", "<" + to + ">", reply.text);
    if (!isPositiveCompletion(reply.status)) return reply;
    reply.status = sendCommand("DATA", reply.text);
    if (!isPositiveIntermediate(reply.status)) return reply;
    Poco::Net::SocketOutputStream socketStream(socket());
    Poco::Net::MailOutputStream mailStream(socketStream);
    mail.write(mailStream);
    mailStream.close();  // the lone "." that ends DATA
    socketStream.flush();
    reply.status = socket().receiveStatusMessage(reply.text);
    return reply;
  }

 private:
  std::string host_;
};

// A socket connected to the relay, through the egress policy: the relay is the operator's, so
// any address may be used, but the deadline and the bounds hold as for any outbound call.
Poco::Net::StreamSocket connectToRelay(const SmtpSettings& s, egress::Clock::time_point deadline) {
  egress::Rules rules{.peer = "the SMTP relay", .deadline = deadline, .allowInternal = true};
  std::string last = "no address";
  for (const auto& address : egress::resolve(s.host, static_cast<uint16_t>(s.port), rules)) {
    auto left =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - egress::Clock::now());
    if (left.count() <= 0) break;
    try {
      Poco::Net::StreamSocket socket;
      socket.connect(
          Poco::Net::SocketAddress(egress::toString(address), static_cast<Poco::UInt16>(s.port)),
          Poco::Timespan(left.count()));
      return socket;
    } catch (const Poco::Exception& e) {
      last = e.displayText();
    }
  }
  throw Error(Code::kUnavailable, "the SMTP relay " + s.host + ":" + std::to_string(s.port) +
                                      " cannot be reached in time: " + last);
}

SmtpReply sendSmtp(const SmtpSettings& s, const EmailMessage& message,
                   Poco::Net::MailMessage& mail) {
  auto deadline = egress::Clock::now() + std::chrono::seconds(s.timeoutSeconds);
  auto permit = egress::admit(s.host, static_cast<uint16_t>(s.port), "the SMTP relay");
  Poco::Net::StreamSocket socket = connectToRelay(s, deadline);
  // One deadline for the whole conversation: at it, the socket is shut down, which ends whatever
  // read or write the session waits in. Made before the session, so that it still holds while
  // the session's destructor says QUIT on a path that threw.
  int fd = socket.impl()->sockfd();
  egress::DeadlineGuard guard(deadline, [fd] { ::shutdown(fd, SHUT_RDWR); });
  RelaySession session(socket, s.host);
  try {
    session.setTimeout(Poco::Timespan(s.timeoutSeconds, 0));
    session.login();  // EHLO
    if (s.startTls && !session.startTls(tlsContext(s)))
      throw Error(Code::kUnavailable, "the SMTP server " + s.host + ":" + std::to_string(s.port) +
                                          " does not offer STARTTLS, which the config requires");
    if (!s.username.empty())
      session.login(Poco::Net::SMTPClientSession::AUTH_PLAIN, s.username, smtpPassword(s));
    SmtpReply reply = session.send(mail, message.fromAddress, message.to);
    session.close();
    return reply;
  } catch (const Poco::Exception&) {
    if (guard.expired())
      throw Error(Code::kUnavailable, "the SMTP relay " + s.host + ":" + std::to_string(s.port) +
                                          " did not finish in time (" +
                                          std::to_string(s.timeoutSeconds) + " s)");
    throw;
  }
}
}  // namespace

std::string mimeText(const EmailMessage& message, const std::string& messageId) {
  Poco::Net::MailMessage mail;
  buildMessage(message, mail, messageId);
  std::ostringstream out;
  mail.write(out);
  return out.str();
}

void Delivery::sendEmail(const EmailMessage& message, EmailReport* report) const {
  const auto& email = settings_.email;
  auto at = message.fromAddress.rfind('@');
  const std::string messageId =
      crypto::uuidV4() + "@" +
      (at == std::string::npos ? "signet" : message.fromAddress.substr(at + 1));
  auto reportAs = [&](const char* type, json::Object details) {
    if (report) *report = EmailEvent{messageId, type, message.fromAddress, message.to, details};
  };
  auto detail = [](std::initializer_list<std::pair<const char*, std::string>> fields) {
    json::Object d = json::object();
    for (const auto& [name, value] : fields) d->set(name, value);
    return d;
  };
  if (email.transport == "outbox") {
    writeToOutbox(settings_.outboxDir, "eml", mimeText(message, messageId));
    reportAs("Send", json::object());
    return;
  }
  const std::string relay = email.smtp.host + ":" + std::to_string(email.smtp.port);
  Poco::Net::MailMessage mail;
  buildMessage(message, mail, messageId);
  SmtpReply reply;
  try {
    try {
      reply = sendSmtp(email.smtp, message, mail);
    } catch (const Error&) {
      throw;
    } catch (const Poco::Exception& e) {
      throw Error(Code::kUnavailable, "email delivery to " + message.to + " through " + relay +
                                          " failed: " + e.displayText());
    } catch (const std::exception& e) {
      throw Error(Code::kUnavailable, "email delivery to " + message.to + " failed: " + e.what());
    }
  } catch (const Error& e) {
    // Nothing the relay answered about the message itself: not reached, too slow, or the
    // conversation failed before MAIL.
    reportAs("DeliveryDelay", detail({{"deliveryDelayType", "TransientCommunicationFailure"},
                                      {"diagnosticCode", e.what()}}));
    throw;
  }
  if (reply.status / 100 == 2) {
    reportAs("Send", detail({{"deliverySmtpResponse", reply.text}}));
    return;
  }
  if (reply.status / 100 == 5)
    reportAs("Bounce", detail({{"bounceType", "Permanent"},
                               {"bounceSubType", "General"},
                               {"diagnosticCode", reply.text}}));
  else
    reportAs("DeliveryDelay", detail({{"deliveryDelayType", "RecipientServerError"},
                                      {"diagnosticCode", reply.text}}));
  throw Error(Code::kUnavailable, "email delivery to " + message.to + " through " + relay +
                                      " failed: the relay answered " + reply.text);
}

}  // namespace sessions
