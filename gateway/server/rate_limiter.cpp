#include "server/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace signet {

RateLimiter::RateLimiter(double perSecond, double burst)
    : perSecond_(perSecond), burst_(std::max(burst, 1.0)) {}

RateLimiter::Bucket& RateLimiter::refilled(const std::string& key, int64_t nowMs) {
  auto [it, fresh] = buckets_.try_emplace(key, Bucket{burst_, nowMs});
  Bucket& b = it->second;
  if (!fresh && nowMs > b.updatedMs) {
    b.tokens = std::min(burst_, b.tokens + (nowMs - b.updatedMs) * perSecond_ / 1000.0);
    b.updatedMs = nowMs;
  }
  return b;
}

void RateLimiter::forgetFullBuckets(int64_t nowMs) {
  std::erase_if(buckets_, [&](const auto& entry) {
    const Bucket& b = entry.second;
    return b.tokens + (nowMs - b.updatedMs) * perSecond_ / 1000.0 >= burst_;
  });
}

std::optional<int64_t> RateLimiter::take(const std::vector<std::string>& keys, int64_t nowMs) {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (buckets_.size() > kMaxKeys) forgetFullBuckets(nowMs);
  double shortest = 1.0;  // tokens still missing, in the emptiest bucket
  bool refused = false;
  for (const auto& key : keys) {
    Bucket& b = refilled(key, nowMs);
    if (b.tokens < 1.0) {
      refused = true;
      shortest = std::max(shortest, 1.0 - b.tokens);
    }
  }
  if (refused)
    return static_cast<int64_t>(std::ceil(std::max(shortest, 0.0) * 1000.0 / perSecond_));
  for (const auto& key : keys) buckets_.at(key).tokens -= 1.0;
  return std::nullopt;
}

}  // namespace signet
