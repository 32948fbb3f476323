// The lines a gateway logger writes while a LogCapture of it is alive, for a test to read. The
// logger writes at information level meanwhile; its channel and level are given back when the
// capture ends. What is captured still goes on to the channel it replaced, so warnings still reach
// the console and every line still reaches the suite's check for secrets (secret_witness.hpp).
#pragma once

#include <Poco/AutoPtr.h>
#include <Poco/Channel.h>
#include <Poco/Logger.h>

#include <string>
#include <vector>

namespace signet::test {

class LogCapture {
 public:
  explicit LogCapture(const std::string& logger);
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // Every line written so far, in order.
  std::vector<std::string> lines() const;

 private:
  class Keeper;
  Poco::Logger& logger_;
  Poco::AutoPtr<Poco::Channel> previous_;
  int previousLevel_;
  Poco::AutoPtr<Keeper> keeper_;
};

}  // namespace signet::test
