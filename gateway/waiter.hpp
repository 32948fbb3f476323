// A background thread's sleep that another thread can cut short (wake) or end for good (stop):
// what the activity event dispatcher and the modules' workers wait on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace signet {

class Waiter {
 public:
  // Sleeps up to `ms` or until woken; false once stopped.
  bool waitFor(int64_t ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping_ || woken_; });
    woken_ = false;
    return !stopping_;
  }
  void wake() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      woken_ = true;
    }
    cv_.notify_all();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
  }
  bool stopping() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopping_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool woken_ = false;
};

}  // namespace signet
