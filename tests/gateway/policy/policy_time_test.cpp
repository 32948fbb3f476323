// Time-based policies on their own: IANA zones read from the system's zone files (offsets,
// DST changes, the footer rule past the table, skipped and repeated wall times), CronSpan
// windows (Turnkey's time-based policies, with DST cases) and the refusals.
#include <gtest/gtest.h>

#include "policy/cron_span.hpp"
#include "policy/engine.hpp"
#include "policy/evaluator.hpp"
#include "policy/time_zone.hpp"

namespace signet::policy {
namespace {

// Epoch milliseconds of an RFC 3339 UTC time.
int64_t at(const std::string& utc) {
  return *parseTimestamp(utc);
}
int64_t seconds(const std::string& utc) {
  return at(utc) / 1000;
}

TEST(TimeZones, OffsetsAcrossDaylightSavingChanges) {
  auto ny = TimeZone::load("America/New_York");
  // 2026: clocks go forward on 8 March at 02:00 EST (07:00 UTC), back on 1 November at
  // 02:00 EDT (06:00 UTC).
  EXPECT_EQ(ny->offsetAt(seconds("2026-03-08T06:59:59Z")), -5 * 3600);
  EXPECT_EQ(ny->offsetAt(seconds("2026-03-08T07:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny->offsetAt(seconds("2026-11-01T05:59:59Z")), -4 * 3600);
  EXPECT_EQ(ny->offsetAt(seconds("2026-11-01T06:00:00Z")), -5 * 3600);
  // Past the file's table (2037) the footer rule "EST5EDT,M3.2.0,M11.1.0" takes over:
  // 2050's second Sunday of March is the 13th.
  EXPECT_EQ(ny->offsetAt(seconds("2050-03-13T06:59:59Z")), -5 * 3600);
  EXPECT_EQ(ny->offsetAt(seconds("2050-03-13T07:00:00Z")), -4 * 3600);
  EXPECT_EQ(ny->offsetAt(seconds("2050-12-25T12:00:00Z")), -5 * 3600);
  // Southern hemisphere: Sydney is on daylight time in January, standard time in July.
  auto sydney = TimeZone::load("Australia/Sydney");
  EXPECT_EQ(sydney->offsetAt(seconds("2060-01-15T00:00:00Z")), 11 * 3600);
  EXPECT_EQ(sydney->offsetAt(seconds("2060-07-15T00:00:00Z")), 10 * 3600);
  EXPECT_EQ(TimeZone::load("UTC")->offsetAt(seconds("2026-06-01T00:00:00Z")), 0);
  EXPECT_EQ(TimeZone::load("Asia/Kolkata")->offsetAt(seconds("2026-06-01T00:00:00Z")),
            5 * 3600 + 1800);
}

TEST(TimeZones, WallTimesThatAreSkippedOrRepeated) {
  auto ny = TimeZone::load("America/New_York");
  auto local = [](const std::string& wall) { return seconds(wall + "Z"); };  // as if UTC
  EXPECT_EQ(ny->toUtc(local("2026-07-01T10:00:00")), seconds("2026-07-01T14:00:00Z"));
  // 02:30 on 8 March 2026 does not exist: it names 07:30 UTC (03:30 EDT), just after the gap.
  EXPECT_EQ(ny->toUtc(local("2026-03-08T02:30:00")), seconds("2026-03-08T07:30:00Z"));
  // 01:30 on 1 November 2026 happens twice: the first (EDT) is taken.
  EXPECT_EQ(ny->toUtc(local("2026-11-01T01:30:00")), seconds("2026-11-01T05:30:00Z"));
}

TEST(TimeZones, NamesOutsideTheZoneDirectoryAreRefused) {
  for (const char* name :
       {"../../etc/passwd", "/etc/localtime", "America/../../etc", "", "a b", "Mars/Olympus",
        "America"})  // a region directory, found by the fuzzer: reading it threw ios_base::failure
    EXPECT_THROW(TimeZone::load(name), std::invalid_argument) << name;
}

TEST(CronSpans, BusinessHoursInNewYork) {
  // One fire at 09:00 on weekdays plus 8 hours.
  CronSpan hours("0 9 * * 1-5", "8h", "America/New_York");
  EXPECT_TRUE(hours.contains(at("2026-03-04T15:00:00Z")));   // Wednesday 10:00 EST
  EXPECT_FALSE(hours.contains(at("2026-03-07T15:00:00Z")));  // Saturday 10:00 EST
  EXPECT_TRUE(hours.contains(at("2026-03-04T14:00:00Z")));   // 09:00: start-inclusive
  EXPECT_FALSE(hours.contains(at("2026-03-04T13:59:59Z")));
  EXPECT_TRUE(hours.contains(at("2026-03-04T21:59:59.999Z")));
  EXPECT_FALSE(hours.contains(at("2026-03-04T22:00:00Z")));  // 17:00: end-exclusive
  EXPECT_TRUE(hours.contains(at("2026-07-08T13:00:00Z")));   // Wednesday 09:00 EDT
  EXPECT_FALSE(hours.contains(at("2026-07-08T12:59:00Z")));
}

TEST(CronSpans, DurationsAreElapsedTimeAcrossDaylightSavingChanges) {
  // "0 22 * * *" for 8h ends at 07:00 after spring-forward and 05:00 after fall-back.
  CronSpan nights("0 22 * * *", "8h", "America/New_York");
  EXPECT_TRUE(nights.contains(at("2026-03-08T10:59:59Z")));   // 06:59:59 EDT
  EXPECT_FALSE(nights.contains(at("2026-03-08T11:00:00Z")));  // 07:00 EDT
  EXPECT_TRUE(nights.contains(at("2026-11-01T09:59:59Z")));   // 04:59:59 EST
  EXPECT_FALSE(nights.contains(at("2026-11-01T10:00:00Z")));  // 05:00 EST
  // A window that crosses midnight and the end of a month.
  CronSpan late("30 23 31 12 *", "90m", "UTC");
  EXPECT_TRUE(late.contains(at("2026-01-01T00:59:00Z")));
  EXPECT_FALSE(late.contains(at("2026-01-01T01:00:00Z")));
  CronSpan week("0 0 * * 1", "7d", "UTC");  // the longest allowed: always active
  EXPECT_TRUE(week.contains(at("2026-05-03T23:59:59Z")));
}

TEST(CronSpans, DayOfMonthAndDayOfWeekAreOredWhenBothAreRestricted) {
  CronSpan firstOrFriday("0 0 1 * 5", "1d", "UTC");
  EXPECT_TRUE(firstOrFriday.contains(at("2026-04-01T12:00:00Z")));   // the 1st, a Wednesday
  EXPECT_TRUE(firstOrFriday.contains(at("2026-04-03T12:00:00Z")));   // a Friday
  EXPECT_FALSE(firstOrFriday.contains(at("2026-04-02T12:00:00Z")));  // neither
  CronSpan fridays("0 0 * * 5", "1d", "UTC");
  EXPECT_FALSE(fridays.contains(at("2026-04-01T12:00:00Z")));
  CronSpan lists("0,30 8-9,17 * 1,6-7 *", "10m", "UTC");
  EXPECT_TRUE(lists.contains(at("2026-06-02T09:35:00Z")));
  EXPECT_TRUE(lists.contains(at("2026-07-02T17:05:00Z")));
  EXPECT_FALSE(lists.contains(at("2026-06-02T10:05:00Z")));
  EXPECT_FALSE(lists.contains(at("2026-05-02T09:35:00Z")));  // May is not listed
}

TEST(CronSpans, RefusalsNameTheArgument) {
  auto why = [](const std::string& cron, const std::string& duration, const std::string& zone) {
    try {
      CronSpan(cron, duration, zone);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(why("*/5 * * * *", "1h", "UTC").find("steps, names and macros"), std::string::npos);
  EXPECT_NE(why("0 9 * * MON", "1h", "UTC").find("'MON'"), std::string::npos);
  EXPECT_NE(why("@daily", "1h", "UTC").find("exactly 5 fields"), std::string::npos);
  EXPECT_NE(why("0 0 9 * * *", "1h", "UTC").find("exactly 5 fields"), std::string::npos);
  EXPECT_NE(why("60 9 * * *", "1h", "UTC").find("outside 0-59"), std::string::npos);
  EXPECT_NE(why("0 9 0 * *", "1h", "UTC").find("outside 1-31"), std::string::npos);
  EXPECT_NE(why("0 17-9 * * *", "1h", "UTC").find("'17-9'"), std::string::npos);
  EXPECT_NE(why("0 9 * * 1,", "1h", "UTC").find("day-of-week"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "0m", "UTC").find("more than zero"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "7d1m", "UTC").find("longer than 7 days"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "1h30", "UTC").find("not like '8h'"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "30m1h", "UTC").find("in that order"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "1s", "UTC").find("units are d, h and m"), std::string::npos);
  EXPECT_NE(why("0 9 * * *", "1h", "Mars/Olympus").find("Mars/Olympus"), std::string::npos);
  EXPECT_EQ(why("0 9 * * *", "1d12h", "Europe/Berlin"), "accepted");
}

TEST(CronSpans, InExpressionsOverTimeNow) {
  auto evalAt = [](const std::string& source, const std::string& now) {
    return evaluateCondition(*parse(source), timeFacts(at(now)));
  };
  const std::string march =
      "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < "
      "Timestamp('2026-04-01T00:00:00Z')";
  EXPECT_TRUE(evalAt(march, "2026-03-31T23:59:59.999Z"));
  EXPECT_FALSE(evalAt(march, "2026-04-01T00:00:00Z"));
  const std::string weekdays = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";
  EXPECT_TRUE(evalAt(weekdays + " && !CronSpan('0 12 * * *', '1h', 'America/New_York')",
                     "2026-03-04T15:00:00Z"));
  EXPECT_FALSE(evalAt(weekdays, "2026-03-07T15:00:00Z"));  // a Saturday
  // Outside a time expression there is no time.now to test against.
  try {
    evaluateCondition(*parse(weekdays), Fields{});
    FAIL();
  } catch (const EvaluationError& e) {
    EXPECT_NE(std::string(e.what()).find("reads time.now"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace signet::policy
