// A real SMTP server on loopback for the delivery tests: tests/support/smtp_sink.py (Debian's
// python3-aiosmtpd) run as a child process. Messages land as files in a folder of their own.
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace signet::test {

struct SmtpSinkOptions {
  bool startTls = false;  // with a fresh self-signed certificate for "localhost"
  std::string user;       // AUTH required when set
  std::string password;
  bool rejectRecipients = false;
};

class SmtpSink {
 public:
  explicit SmtpSink(const std::filesystem::path& dir, SmtpSinkOptions options = {});
  ~SmtpSink();
  int port() const { return port_; }
  // The certificate (PEM) clients should trust when startTls is on.
  const std::filesystem::path& certificate() const { return cert_; }
  // Waits (bounded, 10 s) until at least `count` messages arrived; returns them all in order.
  std::vector<std::string> waitForMessages(size_t count) const;
  std::vector<std::string> messages() const;

 private:
  std::filesystem::path dir_;
  std::filesystem::path cert_;
  std::unique_ptr<Poco::Pipe> in_, out_;
  std::unique_ptr<Poco::ProcessHandle> process_;
  int port_ = 0;
};

}  // namespace signet::test
