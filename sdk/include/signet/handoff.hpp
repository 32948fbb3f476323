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

// Several values may wait under one key, each taken once, the oldest first: two requests alike
// (two identical purchases from one organization, prepared at once) each get a value of their
// own rather than the second put replacing the first, which left the first handler the second's
// value and the second handler none.
template <typename T>
class Handoff {
 public:
  void put(const std::string& key, T value, int64_t nowMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (nowMs - it->second.second > kKeepMs) {
        it = entries_.erase(it);
        continue;
      }
      if (oldest == entries_.end() || it->second.second < oldest->second.second) oldest = it;
      ++it;
    }
    // Full: the oldest value goes. A handler takes its value right after its preparer put it, so
    // the oldest is the likeliest to have been abandoned; the map's first key may be in flight.
    if (entries_.size() >= kMaxEntries) entries_.erase(oldest);
    // A multimap keeps values under one key in the order they were inserted.
    entries_.emplace(key, std::make_pair(std::move(value), nowMs));
  }
  // The oldest value put under `key` and not taken yet; nullopt when there is none, or it is older
  // than a minute.
  std::optional<T> take(const std::string& key, int64_t nowMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    // lower_bound, not find: find may return any of the values under the key.
    for (auto it = entries_.lower_bound(key); it != entries_.end() && it->first == key;) {
      auto [value, atMs] = std::move(it->second);
      it = entries_.erase(it);
      if (nowMs - atMs <= kKeepMs) return std::optional<T>(std::move(value));
    }
    return std::nullopt;
  }

 private:
  static constexpr int64_t kKeepMs = 60'000;
  static constexpr size_t kMaxEntries = 10'000;
  std::mutex mutex_;
  std::multimap<std::string, std::pair<T, int64_t>> entries_;
};

}  // namespace signet
