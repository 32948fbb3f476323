// The proxy's own abuse limits: it answers the open internet without a stamp, so every request
// is counted per client address (before its configuration is even looked up) and per
// configuration, and OTP sends and sign-ups are counted again more tightly, per client address,
// per contact and per configuration; each in a fixed window, refused with 429 and a message
// naming the limit once spent. The counts live in memory: each proxy process counts for itself.
// What gets through is charged, at the coordinator, to the proxy's own budget
// (limits.rateLimit.perAuthProxyPerSecond), never to the organization's.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "signet/json.hpp"

namespace auth_proxy {

struct Limit {
  std::string name;  // the setting's name, limits.<name>
  int count = 0;     // allowed per window; 0 switches the limit off
  int64_t windowMs = 0;
};

struct LimitSettings {
  Limit requestsPerIp{"requestsPerIp", 120, 60'000};           // every endpoint
  Limit requestsPerConfig{"requestsPerConfig", 3000, 60'000};  // every endpoint
  Limit otpInitPerIp{"otpInitPerIp", 10, 60'000};
  Limit otpInitPerContact{"otpInitPerContact", 3, 180'000};
  Limit otpInitPerConfig{"otpInitPerConfig", 300, 60'000};
  Limit signupPerIp{"signupPerIp", 10, 3'600'000};
};
// plugins.settings.auth-proxy.limits: {"otpInitPerIp": {"count": 10, "windowSeconds": 60}, ...}.
LimitSettings parseLimits(const signet::json::Object& settings, const std::string& path);

class AbuseLimits {
 public:
  // Counts one request against `limit` for `key`; ResourceExhausted naming the limit when the
  // window's count is spent (the refused request is not counted).
  void take(const Limit& limit, const std::string& key, int64_t nowMs);

 private:
  struct Window {
    int64_t startMs = 0;
    int count = 0;
    int64_t windowMs = 0;
  };
  // Past kSweepAbove counted keys, windows that have ended are dropped once a second (else once a
  // minute); at kMaxKeys a key not yet counted is refused, so that a flood from many networks
  // costs bounded memory and bounded time.
  static constexpr size_t kSweepAbove = 100'000;
  static constexpr size_t kMaxKeys = 400'000;
  std::mutex mutex_;
  std::map<std::string, Window> windows_;
  int64_t lastSweepMs_ = 0;
};

}  // namespace auth_proxy
