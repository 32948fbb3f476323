// The process's memory allocator: which one serves malloc, and giving freed memory back to the
// system once a thread goes idle. The signet binary links mimalloc, whose malloc takes the C
// library's place for the whole process, plugins included (gateway/CMakeLists.txt). Which
// allocator serves malloc is found at run time, so that a build without it (the sanitizer
// build, whose allocator is ASan's) or a library loaded another way says what it has.
//
// Any thread that handles bursts (a request thread, a committer, a plugin's sender) holds what
// it freed until it allocates again: IdleRelease gives it back once the thread goes idle.
#pragma once

#include <chrono>
#include <string>

namespace signet {

struct AllocatorInForce {
  std::string name;     // "mimalloc", "libc", "asan", or "other" (one preloaded)
  std::string version;  // "2.0.9"; for libc, the C library's; empty otherwise
};

AllocatorInForce allocatorInForce();

// Gives freed memory back to the system. Under mimalloc, what this thread freed
// (mi_collect(true)): mimalloc keeps it until the thread allocates again, 25 ms after the free
// at the soonest. Under glibc's malloc, every arena's free pages (malloc_trim). Nothing under
// another allocator. Costly (it unmaps pages, which flushes the other cores' TLBs): for a thread
// that has gone idle, not for every request.
void releaseFreedMemory();

// A worker thread's idle time: once it has done nothing for `after`, it releases what it freed,
// once, until it works again. So the memory of a burst goes back when the burst ends, and a
// thread under load never pays for it.
class IdleRelease {
 public:
  explicit IdleRelease(std::chrono::milliseconds after = std::chrono::seconds(1)) : after_(after) {}
  void worked() {
    last_ = std::chrono::steady_clock::now();
    released_ = false;
  }
  // Called when a wait ended with nothing to do; true when it released.
  bool waitedIdle() {
    if (released_ || std::chrono::steady_clock::now() - last_ < after_) return false;
    releaseFreedMemory();
    released_ = true;
    return true;
  }

 private:
  std::chrono::milliseconds after_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  bool released_ = false;
};

}  // namespace signet
