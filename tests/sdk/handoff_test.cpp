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

}  // namespace
}  // namespace signet
