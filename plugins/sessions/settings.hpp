// The sessions plugin's settings (plugins.settings.sessions in signet.json). Every field has
// a default; without any, both email and SMS go to the development outbox.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "signet/json.hpp"

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

struct Settings {
  EmailSettings email;
  SmsSettings sms;
  std::string outboxDir;  // absolute; default <data dir>/outbox
  std::string defaultAppName = "Signet";
};

// Throws signet::Error naming the field (plugins.settings.sessions.<field>).
Settings parseSettings(const signet::json::Object& settings, const std::string& dataDir);

}  // namespace sessions
