// What an OAuth 2.0 provider said about a code, handed from oauth2_authenticate's preparer
// (which talks to the provider outside the write lock) to its handler (which runs right after,
// in the transaction). Kept in memory for a minute at most, and bounded: a code is exchanged
// once, so nothing here is worth keeping longer.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "signet/crypto.hpp"

namespace sessions {

struct ExchangedCode {
  std::string subject;  // <provider>:<user id>
  signet::crypto::SecretBytes bearerToken;
  int64_t atMs = 0;
};

class OAuth2Exchanges {
 public:
  void put(const std::string& key, ExchangedCode value) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();)
      it = value.atMs - it->second.atMs > kKeepMs ? entries_.erase(it) : std::next(it);
    if (entries_.size() >= kMaxEntries) entries_.erase(entries_.begin());
    entries_.insert_or_assign(key, std::move(value));
  }
  std::optional<ExchangedCode> take(const std::string& key, int64_t nowMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    ExchangedCode v = std::move(it->second);
    entries_.erase(it);
    if (nowMs - v.atMs > kKeepMs) return std::nullopt;
    return v;
  }

 private:
  static constexpr int64_t kKeepMs = 60'000;
  static constexpr size_t kMaxEntries = 10'000;
  std::mutex mutex_;
  std::map<std::string, ExchangedCode> entries_;
};

}  // namespace sessions
