// What a preparer hands its handler (signet/handoff.hpp): each value taken once, the oldest
// first when several wait under one key, and none older than a minute.
#include "signet/handoff.hpp"

#include <gtest/gtest.h>

namespace signet {
namespace {

TEST(HandoffTest, ValuesUnderOneKeyAreEachTakenOnceOldestFirst) {
  Handoff<std::string> h;
  h.put("purchase", "first token", 1'000);
  h.put("other", "another key's", 1'000);
  h.put("purchase", "second token", 1'001);
  EXPECT_EQ(h.take("purchase", 1'002), "first token");
  EXPECT_EQ(h.take("purchase", 1'002), "second token");
  EXPECT_EQ(h.take("purchase", 1'002), std::nullopt);
  EXPECT_EQ(h.take("other", 1'002), "another key's");
}

TEST(HandoffTest, AValueOlderThanAMinuteIsNotTakenAndANewerOneUnderItsKeyIs) {
  Handoff<std::string> h;
  h.put("code", "stale", 0);
  h.put("code", "fresh", 30'000);
  EXPECT_EQ(h.take("code", 60'001), "fresh");
  EXPECT_EQ(h.take("code", 60'001), std::nullopt);
  h.put("code", "kept a minute", 100'000);
  h.put("code", "no more", 100'000);
  EXPECT_EQ(h.take("code", 160'000), "kept a minute");
  EXPECT_EQ(h.take("code", 160'001), std::nullopt);
}

TEST(HandoffTest, WhenFullTheOldestValueGoesWhateverItsKey) {
  Handoff<std::string> h;
  // The oldest under the last key in order, then enough newer ones under earlier keys to fill
  // it (10,000 values), then one more.
  h.put("z", "oldest", 1'000);
  for (int i = 0; i < 9'999; ++i) h.put("a" + std::to_string(10'000 + i), "newer", 2'000);
  h.put("b", "one more", 3'000);
  EXPECT_EQ(h.take("z", 3'001), std::nullopt);
  EXPECT_EQ(h.take("a10000", 3'001), "newer");
  EXPECT_EQ(h.take("b", 3'001), "one more");
}

}  // namespace
}  // namespace signet
