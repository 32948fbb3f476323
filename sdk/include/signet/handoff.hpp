// What an activity's preparer learned over the network (ActivityPreparer, outside the write
// lock), held for the handler that runs right after it in the transaction: a code an OAuth 2.0
// provider exchanged, a session token a provider issued. Kept a minute at most, and bounded,
// since each value is taken once: nothing here is worth keeping longer.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace signet {

template <typename T>
class Handoff {
 public:
  void put(const std::string& key, T value, int64_t nowMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();)
      it = nowMs - it->second.second > kKeepMs ? entries_.erase(it) : std::next(it);
    if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());
    entries_.insert_or_assign(key, std::make_pair(std::move(value), nowMs));
  }
  // The value put under `key`, once; nullopt when none was, or it is older than a minute.
  std::optional<T> take(const std::string& key, int64_t nowMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    auto [value, atMs] = std::move(it->second);
    entries_.erase(it);
    if (nowMs - atMs > kKeepMs) return std::nullopt;
    return std::optional<T>(std::move(value));
  }

 private:
  static constexpr int64_t kKeepMs = 60'000;
  static constexpr size_t kMaxEntries = 10'000;
  std::mutex mutex_;
  std::map<std::string, std::pair<T, int64_t>> entries_;
};

}  // namespace signet
