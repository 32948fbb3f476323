// An advisory lock on <data dir>/serve.lock that `signet serve` holds while it runs, so that
// commands which must not run under a serving gateway (restore) can tell (flock(2); released
// by the kernel when the process ends, however it ends).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace signet::cli {

class ServeLock {
 public:
  explicit ServeLock(const std::filesystem::path& dataDir) {
    fd_ = ::open((dataDir / "serve.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    acquired_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~ServeLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  ServeLock(const ServeLock&) = delete;
  ServeLock& operator=(const ServeLock&) = delete;
  bool acquired() const { return acquired_; }

 private:
  int fd_ = -1;
  bool acquired_ = false;
};

}  // namespace signet::cli
