// IANA time zones for CronSpan, read from the system's compiled zone files (TZif, RFC 8536;
// Debian's tzdata package, or $TZDIR). Transitions come from the file's 64-bit table; times
// past its last transition follow the POSIX TZ rule in the file's footer (M-month rules).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace signet::policy {

class TimeZone {
 public:
  // Loads (once per process) the zone named like "America/New_York" or "UTC". Throws
  // std::invalid_argument naming the zone when it is unknown, malformed or not a zone name.
  static std::shared_ptr<const TimeZone> load(const std::string& name);

  // Seconds east of UTC in effect at the UTC instant `utc` (seconds since the epoch).
  int64_t offsetAt(int64_t utc) const;

  // The UTC instant of a local wall-clock time (seconds since the epoch, as if local were
  // UTC). A local time that occurs twice (clocks set back) gives its first occurrence; one
  // that is skipped (clocks set forward) gives the instant the same wall time names under the
  // offset before the change, which falls just after the gap (as mktime does).
  int64_t toUtc(int64_t local) const;

  const std::string& name() const { return name_; }

 private:
  struct Transition {
    int64_t at;      // UTC seconds
    int64_t offset;  // seconds east of UTC from `at` on
  };
  struct Rule {  // the footer's DST rule: month, week (5 = last), weekday, local time
    int month = 0, week = 0, weekday = 0;
    int64_t time = 7200;
  };

  TimeZone() = default;
  void parseFooter(const std::string& footer);
  std::vector<Transition> ruleTransitions(int64_t year) const;

  std::string name_;
  std::vector<Transition> transitions_;
  int64_t initialOffset_ = 0;
  bool hasFooter_ = false;
  int64_t standardOffset_ = 0, daylightOffset_ = 0;
  bool hasDaylight_ = false;
  Rule start_, end_;
};

// Calendar arithmetic on the proleptic Gregorian calendar (days since 1970-01-01).
int64_t daysFromCivil(int64_t year, unsigned month, unsigned day);
void civilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day);
unsigned weekdayOf(int64_t days);  // 0 = Sunday

}  // namespace signet::policy
