#include "policy/time_zone.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

namespace signet::policy {

int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civilFromDays(int64_t z, int64_t& year, unsigned& month, unsigned& day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2);
}

unsigned weekdayOf(int64_t days) {
  return static_cast<unsigned>(days >= -4 ? (days + 4) % 7 : (days + 5) % 7 + 6);
}

namespace {

[[noreturn]] void bad(const std::string& zone, const std::string& why) {
  throw std::invalid_argument("time zone '" + zone + "' " + why);
}

// An IANA name: letters, digits, '_', '+', '-' in '/'-separated parts, none starting with
// '.', so that nothing outside the zone directory can be named.
bool isZoneName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  char previous = '/';
  for (char c : name) {
    bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' || c == '/';
    if (!ok || (previous == '/' && (c == '/' || c == '.'))) return false;
    previous = c;
  }
  return true;
}

int64_t bigEndian(const std::string& data, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v = v << 8 | static_cast<unsigned char>(data[at + i]);
  if (width == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

// POSIX TZ pieces: "[+-]hh[:mm[:ss]]" as seconds.
bool posixTime(const std::string& s, size_t& i, int64_t& out) {
  int sign = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
  int64_t parts[3] = {0, 0, 0};
  for (int p = 0; p < 3; ++p) {
    if (p > 0) {
      if (i >= s.size() || s[i] != ':') break;
      ++i;
    }
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 3)
      parts[p] = parts[p] * 10 + (s[i++] - '0');
    if (i == start) return false;
  }
  out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
  return true;
}

bool posixName(const std::string& s, size_t& i) {
  if (i < s.size() && s[i] == '<') {
    size_t close = s.find('>', i);
    if (close == std::string::npos) return false;
    i = close + 1;
    return true;
  }
  size_t start = i;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
  return i - start >= 3;
}

}  // namespace

void TimeZone::parseFooter(const std::string& footer) {
  size_t i = 0;
  int64_t west = 0;
  if (!posixName(footer, i) || !posixTime(footer, i, west)) bad(name_, "has a footer not read");
  hasFooter_ = true;
  standardOffset_ = -west;
  if (i == footer.size()) return;
  if (!posixName(footer, i)) bad(name_, "has a footer not read");
  hasDaylight_ = true;
  daylightOffset_ = standardOffset_ + 3600;
  if (i < footer.size() && footer[i] != ',') {
    if (!posixTime(footer, i, west)) bad(name_, "has a footer not read");
    daylightOffset_ = -west;
  }
  auto rule = [&](Rule& r) {
    // Only the "Mm.w.d[/time]" form: the one every current zone uses.
    if (i >= footer.size() || footer[i] != ',' || i + 1 >= footer.size() || footer[i + 1] != 'M')
      bad(name_, "has a daylight-saving rule this gateway does not read: " + footer);
    i += 2;
    if (std::sscanf(footer.c_str() + i, "%d.%d.%d", &r.month, &r.week, &r.weekday) != 3 ||
        r.month < 1 || r.month > 12 || r.week < 1 || r.week > 5 || r.weekday < 0 || r.weekday > 6)
      bad(name_, "has a daylight-saving rule this gateway does not read: " + footer);
    while (i < footer.size() && footer[i] != '/' && footer[i] != ',') ++i;
    if (i < footer.size() && footer[i] == '/') {
      ++i;
      if (!posixTime(footer, i, r.time)) bad(name_, "has a footer not read");
    }
  };
  rule(start_);
  rule(end_);
}

std::shared_ptr<const TimeZone> TimeZone::load(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TimeZone>> zones;
  if (!isZoneName(name)) bad(name, "is not an IANA time zone name");
  {
    std::lock_guard lock(mutex);
    auto it = zones.find(name);
    if (it != zones.end()) return it->second;
  }
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + name;
  // Only a regular file: a region directory ('America') opens as a stream too, and reading
  // it throws ios_base::failure instead of giving the "not a known time zone" refusal.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    bad(name, "is not a known time zone (no zone file at " + path + ")");
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0)
    bad(name, "is not a known time zone (no zone file at " + path + ")");
  if (data.size() > 1 << 20) bad(name, "has a zone file too large to be one");

  auto zone = std::shared_ptr<TimeZone>(new TimeZone());
  zone->name_ = name;
  auto counts = [&](size_t header) {
    std::vector<int64_t> c;
    for (int k = 0; k < 6; ++k) c.push_back(bigEndian(data, header + 20 + 4 * k, 4));
    return c;  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  };
  size_t header = 0, width = 4;
  auto c = counts(header);
  auto blockSize = [&](const std::vector<int64_t>& n, size_t w) {
    return static_cast<size_t>(n[3] * static_cast<int64_t>(w) + n[3] + n[4] * 6 + n[5] +
                               n[2] * static_cast<int64_t>(w + 4) + n[1] + n[0]);
  };
  if (data[4] >= '2') {  // skip the 32-bit block to the 64-bit one
    header = 44 + blockSize(c, 4);
    width = 8;
    if (header + 44 > data.size() || data.compare(header, 4, "TZif") != 0)
      bad(name, "has a malformed zone file");
    c = counts(header);
  }
  size_t body = header + 44;
  if (c[4] < 1 || body + blockSize(c, width) > data.size()) bad(name, "has a malformed zone file");
  size_t times = body, indexes = times + static_cast<size_t>(c[3]) * width,
         types = indexes + static_cast<size_t>(c[3]);
  auto offsetOfType = [&](size_t type) {
    if (type >= static_cast<size_t>(c[4])) bad(name, "has a malformed zone file");
    return bigEndian(data, types + 6 * type, 4);
  };
  zone->initialOffset_ = offsetOfType(0);
  for (int64_t k = 0; k < c[3]; ++k)
    zone->transitions_.push_back(
        {bigEndian(data, times + static_cast<size_t>(k) * width, width),
         offsetOfType(static_cast<unsigned char>(data[indexes + static_cast<size_t>(k)]))});
  if (width == 8) {
    size_t footer = body + blockSize(c, width);
    if (footer < data.size() && data[footer] == '\n') {
      size_t close = data.find('\n', footer + 1);
      if (close != std::string::npos && close > footer + 1)
        zone->parseFooter(data.substr(footer + 1, close - footer - 1));
    }
  }
  std::lock_guard lock(mutex);
  return zones.emplace(name, zone).first->second;
}

std::vector<TimeZone::Transition> TimeZone::ruleTransitions(int64_t year) const {
  auto dayOf = [&](const Rule& r) {
    int64_t first = daysFromCivil(year, static_cast<unsigned>(r.month), 1);
    int64_t day =
        first + (r.weekday - static_cast<int64_t>(weekdayOf(first)) + 7) % 7 + (r.week - 1) * 7;
    int64_t nextMonth = r.month == 12 ? daysFromCivil(year + 1, 1, 1)
                                      : daysFromCivil(year, static_cast<unsigned>(r.month) + 1, 1);
    while (day >= nextMonth) day -= 7;  // week 5: the last such weekday
    return day;
  };
  // The start is written in standard time, the end in daylight time.
  int64_t start = dayOf(start_) * 86400 + start_.time - standardOffset_;
  int64_t end = dayOf(end_) * 86400 + end_.time - daylightOffset_;
  std::vector<Transition> out = {{start, daylightOffset_}, {end, standardOffset_}};
  if (out[1].at < out[0].at) std::swap(out[0], out[1]);
  return out;
}

int64_t TimeZone::offsetAt(int64_t utc) const {
  auto after = std::upper_bound(transitions_.begin(), transitions_.end(), utc,
                                [](int64_t t, const Transition& tr) { return t < tr.at; });
  bool pastTable = after == transitions_.end();
  if (!pastTable || !hasFooter_)
    return after == transitions_.begin() ? initialOffset_ : std::prev(after)->offset;
  if (!hasDaylight_) return standardOffset_;
  int64_t year;
  unsigned month, day;
  civilFromDays((utc + standardOffset_) / 86400 - ((utc + standardOffset_) % 86400 < 0), year,
                month, day);
  std::vector<Transition> around;
  for (int64_t y = year - 1; y <= year + 1; ++y)
    for (const auto& t : ruleTransitions(y)) around.push_back(t);
  int64_t offset = standardOffset_;
  for (const auto& t : around)
    if (t.at <= utc) offset = t.offset;
  return offset;
}

int64_t TimeZone::toUtc(int64_t local) const {
  // The offset in effect at the true instant is one of those within a day of it.
  const int64_t before = offsetAt(local - 93600), after = offsetAt(local + 93600);
  int64_t best = 0;
  bool found = false;
  for (int64_t offset : {before, offsetAt(local), after}) {
    int64_t utc = local - offset;
    if (offsetAt(utc) == offset && (!found || utc < best)) {
      best = utc;
      found = true;
    }
  }
  return found ? best : local - before;
}

}  // namespace signet::policy
