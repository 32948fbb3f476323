// A worker thread gives its freed memory back once when it goes idle, and not again until it has
// worked (observability/allocator.hpp).
#include <gtest/gtest.h>

#include <chrono>

#include "observability/allocator.hpp"

namespace signet {
namespace {

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
