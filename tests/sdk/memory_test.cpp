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

// Pages freed by this thread stay the process's until they are released: under glibc's malloc
// those below a block still held (only the heap's top shrinks by itself), under mimalloc the
// thread's emptied pages (mi_collect). The test binary runs on the C library's malloc; ctest runs
// it again with mimalloc preloaded (SIGNET_EXPECT_ALLOCATOR, tests/CMakeLists.txt). The sanitizer
// build's allocator is ASan's, which manages its own.
TEST(ReleaseFreedMemoryTest, PagesFreedByThisThreadGoBackToTheSystem) {
  const std::string allocator = allocatorInForce().name;
  if (const char* expected = std::getenv("SIGNET_EXPECT_ALLOCATOR")) {
    ASSERT_EQ(allocator, expected);
  }
  if (allocator != "libc" && allocator != "mimalloc")
    GTEST_SKIP() << "the allocator here is " << allocator;
  constexpr size_t kBlocks = 65536, kSize = 1000;  // 64 MB, each under the mmap threshold
  std::vector<char*> blocks;
  blocks.reserve(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kSize)));
    std::memset(blocks.back(), 1, kSize);  // resident
  }
  char* pin = static_cast<char*>(std::malloc(kSize));  // above them: glibc's top cannot shrink
  std::memset(pin, 1, kSize);
  for (char* b : blocks) std::free(b);
  const int64_t freed = residentKiB();
  releaseFreedMemory();
  const int64_t released = residentKiB();
  std::free(pin);
  // glibc gives back nearly all 64 MiB; mimalloc about half, keeping some emptied segments for
  // reuse. Without the call, neither gives back any.
  EXPECT_GT(freed - released, 24 * 1024) << freed << " KiB before, " << released << " after";
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
