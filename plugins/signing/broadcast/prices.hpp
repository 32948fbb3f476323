// The USD price of a chain's native coin, for sponsorship accounting: fixed in the settings, or
// read from a configured JSON document (kept for its cacheSeconds). Only the worker asks, outside
// any request.
#pragma once

#include <map>
#include <mutex>
#include <optional>

#include "quantity.hpp"
#include "settings.hpp"

namespace signing::broadcast {

class Prices {
 public:
  explicit Prices(const Settings& s) : settings_(s) {}
  // micro-USD per coin; nullopt when the chain has no price configured. Unavailable when the
  // source cannot be read and no earlier reading is held.
  std::optional<Uint128> usdMicros(const std::string& caip2, int64_t nowMs);
  bool configured(const std::string& caip2) const {
    return settings_.usdPrice.count(caip2) || settings_.priceSource.count(caip2);
  }

 private:
  const Settings& settings_;
  std::mutex mutex_;
  std::map<std::string, std::pair<Uint128, int64_t>> cache_;  // caip2 -> (price, read at)
};

}  // namespace signing::broadcast
