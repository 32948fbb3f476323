// CronSpan(cron, duration, zone) of time-based policies (Turnkey's time-based policies): true when
// the instant lies in [fire, fire + duration) for a fire of the cron expression in the zone.
//   cron:     exactly 5 fields "min hour dom mon dow" (dow 0-6, Sunday 0) of numbers, a-b
//             ranges, comma lists and '*'; no steps, names, macros or seconds. When both dom
//             and dow are restricted a day matches either (classic cron).
//   duration: whole d/h/m parts ("90m", "1d12h"), more than zero and at most 7 days; elapsed
//             time, so a span across a DST change is that many real hours.
//   zone:     an IANA name; fires are wall-clock times there (time_zone.hpp says how skipped
//             and repeated wall times resolve).
#pragma once

#include <array>
#include <bitset>
#include <memory>
#include <string>

#include "policy/time_zone.hpp"

namespace signet::policy {

class CronSpan {
 public:
  // Throws std::invalid_argument naming the argument and what is wrong with it.
  CronSpan(const std::string& cron, const std::string& duration, const std::string& zone);

  bool contains(int64_t epochMs) const;

 private:
  bool dayMatches(int64_t days) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;
  std::bitset<13> months_;
  std::bitset<7> weekdays_;
  bool anyDayOfMonth_ = false, anyWeekday_ = false;
  int64_t durationSeconds_ = 0;
  std::shared_ptr<const TimeZone> zone_;
};

}  // namespace signet::policy
