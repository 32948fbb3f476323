#include "abuse_limits.hpp"

#include <algorithm>

#include "signet/error.hpp"

namespace auth_proxy {

using namespace signet;

LimitSettings parseLimits(const json::Object& settings, const std::string& path) {
  LimitSettings s;
  auto given = json::optionalObject(settings, "limits", path);
  if (!given) return s;
  std::vector<Limit*> all = {&s.requestsPerIp,     &s.requestsPerConfig, &s.otpInitPerIp,
                             &s.otpInitPerContact, &s.otpInitPerConfig,  &s.signupPerIp};
  for (Limit* l : all) {
    auto o = json::optionalObject(given, l->name, path + ".limits");
    if (!o) continue;
    std::string at = path + ".limits." + l->name;
    if (o->has("count")) {
      l->count = json::requireInt(o, "count", at);
      if (l->count < 0)
        throw invalidArgument("invalid field " + at + ".count: must not be negative");
    }
    if (o->has("windowSeconds")) {
      int seconds = json::requireInt(o, "windowSeconds", at);
      if (seconds < 1 || seconds > 86400)
        throw invalidArgument("invalid field " + at + ".windowSeconds: from 1 to 86400");
      l->windowMs = int64_t(seconds) * 1000;
    }
  }
  std::string names;
  for (const Limit* l : all) names += (names.empty() ? "" : ", ") + l->name;
  for (const auto& name : given->getNames())
    if (std::none_of(all.begin(), all.end(), [&](const Limit* l) { return l->name == name; }))
      throw invalidArgument("invalid field " + path + ".limits." + name + ": the limits are " +
                            names);
  return s;
}

void AbuseLimits::take(const Limit& limit, const std::string& key, int64_t nowMs) {
  if (limit.count == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Windows that ended are dropped now and then (at once past kSweepAbove keys), so the map
  // holds only live clients. No window is longer than a day.
  if (nowMs - lastSweepMs_ > (windows_.size() > kSweepAbove ? 1'000 : 60'000)) {
    for (auto it = windows_.begin(); it != windows_.end();)
      it = nowMs - it->second.startMs > it->second.windowMs ? windows_.erase(it) : std::next(it);
    lastSweepMs_ = nowMs;
  }
  const std::string counted = limit.name + "\n" + key;
  if (windows_.size() >= kMaxKeys && !windows_.count(counted))
    throw resourceExhausted("auth proxy limit " + limit.name +
                            ": too many clients are counted now; try again shortly")
        .retryAfter(1);
  Window& w = windows_[counted];
  if (nowMs - w.startMs >= limit.windowMs) w = Window{nowMs, 0, limit.windowMs};
  if (w.count >= limit.count) {
    int wait = static_cast<int>((w.startMs + limit.windowMs - nowMs + 999) / 1000);
    throw resourceExhausted(
        "auth proxy limit " + limit.name + " reached: " + std::to_string(limit.count) + " per " +
        std::to_string(limit.windowMs / 1000) + " s (plugins.settings.auth-proxy.limits." +
        limit.name + "); try again in " + std::to_string(wait) + " s")
        .retryAfter(wait);
  }
  ++w.count;
}

}  // namespace auth_proxy
