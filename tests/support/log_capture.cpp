#include "support/log_capture.hpp"

#include <Poco/Message.h>

#include <mutex>

namespace signet::test {

class LogCapture::Keeper : public Poco::Channel {
 public:
  explicit Keeper(Poco::AutoPtr<Poco::Channel> next) : next_(std::move(next)) {}
  void log(const Poco::Message& m) override {
    {
      std::lock_guard lock(mutex_);
      lines_.push_back(m.getText());
    }
    if (next_) next_->log(m);
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  Poco::AutoPtr<Poco::Channel> next_;  // alive for as long as this one may log
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

LogCapture::LogCapture(const std::string& logger)
    : logger_(Poco::Logger::get(logger)),
      previous_(logger_.getChannel()),
      previousLevel_(logger_.getLevel()),
      keeper_(new Keeper(previous_)) {
  logger_.setChannel(keeper_);
  logger_.setLevel(Poco::Message::PRIO_INFORMATION);
}

LogCapture::~LogCapture() {
  logger_.setChannel(previous_);
  logger_.setLevel(previousLevel_);
}

std::vector<std::string> LogCapture::lines() const {
  return keeper_->lines();
}

}  // namespace signet::test
