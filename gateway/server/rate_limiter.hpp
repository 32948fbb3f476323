// Token buckets by key (a client address, an organization): each refills at `perSecond` up to
// `burst` tokens, and a request takes one token from every bucket it counts against, or none.
// A rate of 0 turns the limiter off. Buckets that have refilled completely are forgotten when
// the table grows, so a flood of distinct keys cannot grow it without bound.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace signet {

class RateLimiter {
 public:
  RateLimiter(double perSecond, double burst);
  bool enabled() const { return perSecond_ > 0; }
  // Takes a token from each key's bucket when every one has one: nullopt. Otherwise takes none
  // and returns how many milliseconds until they would.
  std::optional<int64_t> take(const std::vector<std::string>& keys, int64_t nowMs);
  std::optional<int64_t> take(const std::string& key, int64_t nowMs) {
    return take(std::vector<std::string>{key}, nowMs);
  }

 private:
  struct Bucket {
    double tokens;
    int64_t updatedMs;
  };
  Bucket& refilled(const std::string& key, int64_t nowMs);
  void forgetFullBuckets(int64_t nowMs);

  static constexpr size_t kMaxKeys = 100'000;
  double perSecond_;
  double burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace signet
