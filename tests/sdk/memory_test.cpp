// Freed memory goes back to the system, and a worker thread gives its own back once when it goes
// idle, and not again until it has worked (signet/memory.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "signet/memory.hpp"

namespace signet {
namespace {

int64_t residentKiB() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// Under glibc's malloc, pages freed below a block still held stay the process's (only the heap's
// top shrinks by itself) until they are released. The test binary runs on the C library's malloc;
// the sanitizer build's is ASan's, which manages its own.
TEST(ReleaseFreedMemoryTest, PagesFreedAmidTheHeapGoBackToTheSystem) {
  const std::string allocator = allocatorInForce().name;
  if (allocator != "libc") GTEST_SKIP() << "the allocator here is " << allocator;
  constexpr size_t kBlocks = 65536, kSize = 1000;  // 64 MB, each under the mmap threshold
  std::vector<char*> blocks;
  blocks.reserve(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kSize)));
    std::memset(blocks.back(), 1, kSize);  // resident
  }
  char* pin = static_cast<char*>(std::malloc(kSize));  // above them: the top cannot shrink
  std::memset(pin, 1, kSize);
  for (char* b : blocks) std::free(b);
  const int64_t freed = residentKiB();
  releaseFreedMemory();
  const int64_t released = residentKiB();
  std::free(pin);
  EXPECT_GT(freed - released, 48 * 1024) << freed << " KiB before, " << released << " after";
}

TEST(IdleReleaseTest, AThreadIdleLongEnoughReleasesOnceUntilItWorksAgain) {
  IdleRelease idle(std::chrono::milliseconds(0));
  idle.worked();
  EXPECT_TRUE(idle.waitedIdle());   // idle past the threshold: releases
  EXPECT_FALSE(idle.waitedIdle());  // still idle, already released
  EXPECT_FALSE(idle.waitedIdle());
  idle.worked();
  EXPECT_TRUE(idle.waitedIdle());  // worked since: releases again
}

TEST(IdleReleaseTest, AThreadThatWorkedRecentlyKeepsItsMemory) {
  IdleRelease idle(std::chrono::hours(1));
  idle.worked();
  EXPECT_FALSE(idle.waitedIdle());
  EXPECT_FALSE(idle.waitedIdle());
}

}  // namespace
}  // namespace signet
