#include "support/secret_witness.hpp"

#include <Poco/AutoPtr.h>
#include <Poco/Channel.h>
#include <Poco/ConsoleChannel.h>
#include <Poco/Logger.h>
#include <Poco/Message.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace signet::test {

namespace {

struct Witness {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> secrets;  // (kind, text)
  std::vector<std::string> lines;
};

Witness& witness() {
  static Witness* w = new Witness;  // outlives every logger that writes to it
  return *w;
}

// Keeps every line, and passes warnings and worse on to the console as the tests always had.
class CapturingChannel : public Poco::Channel {
 public:
  explicit CapturingChannel(Poco::AutoPtr<Poco::Channel> console) : console_(std::move(console)) {}
  void log(const Poco::Message& m) override {
    {
      std::lock_guard lock(witness().mutex);
      witness().lines.push_back(m.getText());
    }
    if (m.getPriority() <= Poco::Message::PRIO_WARNING) console_->log(m);
  }

 private:
  Poco::AutoPtr<Poco::Channel> console_;
};

// After the last test of the program (ctest runs one test a process): gtest counts a failure
// here, in an environment's TearDown, against the program, whose exit code then says so.
class SecretLogCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    std::vector<std::pair<std::string, std::string>> secrets;
    std::vector<std::string> lines;
    {
      std::lock_guard lock(witness().mutex);
      secrets = witness().secrets;
      lines.swap(witness().lines);
    }
    for (const auto& line : lines)
      for (const auto& [kind, secret] : secrets)
        if (line.find(secret) != std::string::npos)
          ADD_FAILURE() << "a log line holds a secret (" << kind << "): " << line;
  }
};

// Installed when the test program starts: the root logger and every logger made after it
// write to the capturing channel at information level.
const bool installed = [] {
  Poco::AutoPtr<Poco::Channel> console(new Poco::ConsoleChannel);
  Poco::AutoPtr<Poco::Channel> capture(new CapturingChannel(console));
  // The root first (loggers made later copy its channel and level), then any made already.
  Poco::Logger::root().setChannel(capture);
  Poco::Logger::root().setLevel(Poco::Message::PRIO_INFORMATION);
  Poco::Logger::setChannel("", capture);
  Poco::Logger::setLevel("", Poco::Message::PRIO_INFORMATION);
  ::testing::AddGlobalTestEnvironment(new SecretLogCheck);  // gtest owns it
  return true;
}();

}  // namespace

void witnessSecret(const std::string& kind, const std::string& secret) {
  if (secret.size() < 16) return;
  std::lock_guard lock(witness().mutex);
  witness().secrets.emplace_back(kind, secret);
}

}  // namespace signet::test
