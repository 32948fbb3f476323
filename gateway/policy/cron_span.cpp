#include "policy/cron_span.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace signet::policy {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument(what);
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, by)) out.push_back(part);
  if (!s.empty() && s.back() == by) out.push_back("");
  return out;
}

bool number(const std::string& s, int& out) {
  if (s.empty() || s.size() > 2) return false;
  out = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

// One cron field: '*', n, a-b, and comma lists of those. Returns whether it was '*'.
template <size_t N>
bool parseField(const std::string& text, const char* name, int low, int high, std::bitset<N>& set) {
  bool any = false;
  for (const auto& item : split(text, ',')) {
    int a = 0, b = 0;
    if (item == "*") {
      any = true;
      a = low;
      b = high;
    } else if (auto dash = item.find('-'); dash != std::string::npos) {
      if (!number(item.substr(0, dash), a) || !number(item.substr(dash + 1), b))
        bad("cron " + std::string(name) + " field '" + text + "': '" + item +
            "' is not a number or a range a-b (steps, names and macros are not supported)");
    } else if (number(item, a)) {
      b = a;
    } else {
      bad("cron " + std::string(name) + " field '" + text + "': '" + item +
          "' is not a number or a range a-b (steps, names and macros are not supported)");
    }
    if (a < low || b > high || a > b)
      bad("cron " + std::string(name) + " field '" + text + "': '" + item + "' is outside " +
          std::to_string(low) + "-" + std::to_string(high));
    for (int v = a; v <= b; ++v) set.set(static_cast<size_t>(v));
  }
  return any;
}

int64_t parseDuration(const std::string& text) {
  // Whole parts in the order d, h, m; at least one.
  int64_t total = 0;
  size_t i = 0;
  const char order[] = {'d', 'h', 'm'};
  size_t next = 0;
  while (i < text.size()) {
    size_t start = i;
    int64_t value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 6)
      value = value * 10 + (text[i++] - '0');
    if (i == start || i >= text.size()) bad("duration '" + text + "' is not like '8h' or '1d12h'");
    char unit = text[i++];
    while (next < 3 && order[next] != unit) ++next;
    if (next == 3) bad("duration '" + text + "': units are d, h and m, in that order");
    total += value * (unit == 'd' ? 86400 : unit == 'h' ? 3600 : 60);
    ++next;
  }
  if (total <= 0) bad("duration '" + text + "' must be more than zero");
  if (total > 7 * 86400) bad("duration '" + text + "' is longer than 7 days");
  return total;
}

}  // namespace

CronSpan::CronSpan(const std::string& cron, const std::string& duration, const std::string& zone) {
  std::vector<std::string> fields;
  std::istringstream in(cron);
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() != 5)
    bad("cron '" + cron + "' must have exactly 5 fields (minute hour day-of-month month " +
        "day-of-week), not " + std::to_string(fields.size()));
  parseField(fields[0], "minute", 0, 59, minutes_);
  parseField(fields[1], "hour", 0, 23, hours_);
  anyDayOfMonth_ = parseField(fields[2], "day-of-month", 1, 31, daysOfMonth_);
  parseField(fields[3], "month", 1, 12, months_);
  anyWeekday_ = parseField(fields[4], "day-of-week", 0, 6, weekdays_);
  durationSeconds_ = parseDuration(duration);
  zone_ = TimeZone::load(zone);
}

bool CronSpan::dayMatches(int64_t days) const {
  int64_t year;
  unsigned month, day;
  civilFromDays(days, year, month, day);
  if (!months_[month]) return false;
  bool dom = daysOfMonth_[day], dow = weekdays_[weekdayOf(days)];
  if (anyDayOfMonth_ || anyWeekday_) return dom && dow;  // '*' matches every day
  return dom || dow;
}

bool CronSpan::contains(int64_t epochMs) const {
  const int64_t now = epochMs / 1000 - (epochMs % 1000 < 0);
  const int64_t local = now + zone_->offsetAt(now);
  auto floorDay = [](int64_t seconds) { return seconds / 86400 - (seconds % 86400 < 0); };
  // A fire that still covers `now` is at most `duration` earlier; a day of margin on each
  // side covers any zone offset.
  for (int64_t day = floorDay(local - durationSeconds_) - 1; day <= floorDay(local) + 1; ++day) {
    if (!dayMatches(day)) continue;
    for (int h = 0; h < 24; ++h) {
      if (!hours_[static_cast<size_t>(h)]) continue;
      for (int m = 0; m < 60; ++m) {
        if (!minutes_[static_cast<size_t>(m)]) continue;
        int64_t fire = zone_->toUtc(day * 86400 + h * 3600 + m * 60);
        if (fire * 1000 <= epochMs && epochMs < (fire + durationSeconds_) * 1000) return true;
      }
    }
  }
  return false;
}

}  // namespace signet::policy
