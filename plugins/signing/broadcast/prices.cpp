#include "prices.hpp"

#include <chrono>

#include "signet/egress.hpp"
#include "signet/error.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
// `field` is a dotted path ("data.amount") to a string or a number.
std::optional<std::string> readField(json::Object o, const std::string& field) {
  size_t start = 0;
  Poco::Dynamic::Var v;
  while (o) {
    size_t dot = field.find('.', start);
    std::string key =
        field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    v = o->get(key);
    if (dot == std::string::npos) break;
    o = v.type() == typeid(json::Object) ? v.extract<json::Object>() : nullptr;
    start = dot + 1;
  }
  if (!o || v.isEmpty()) return std::nullopt;
  if (v.isString()) return v.convert<std::string>();
  if (v.isNumeric()) return v.convert<std::string>();
  return std::nullopt;
}
}  // namespace

std::optional<Uint128> Prices::usdMicros(const std::string& caip2, int64_t nowMs) {
  if (auto fixed = settings_.usdPrice.find(caip2); fixed != settings_.usdPrice.end())
    return parseFixed(fixed->second, 6);
  auto source = settings_.priceSource.find(caip2);
  if (source == settings_.priceSource.end()) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto held = cache_.find(caip2);
    if (held != cache_.end() && nowMs - held->second.second < source->second.cacheSeconds * 1000)
      return held->second.first;
  }
  std::string what = "the price source of " + caip2;
  try {
    // The price source is the operator's choice: it may be on any address.
    auto answer = egress::exchange(
        {.url = source->second.url},
        {.peer = what,
         .deadline = egress::Clock::now() + std::chrono::seconds(settings_.timeoutSeconds),
         .allowHttp = settings_.allowInsecureUrls,
         .allowInternal = true});
    auto text = answer.status == 200
                    ? readField(json::parseObject(answer.body, what), source->second.field)
                    : std::nullopt;
    // Prices come with more digits than a micro-dollar; the rest is cut.
    if (text && text->find('.') != std::string::npos && text->size() - text->find('.') > 7)
      text = text->substr(0, text->find('.') + 7);
    auto price = text ? parseFixed(*text, 6) : std::nullopt;
    if (!price)
      throw Error(Code::kUnavailable, what + " (" + source->second.url + ") gave no USD price at " +
                                          source->second.field);
    std::lock_guard<std::mutex> lock(mutex_);
    cache_[caip2] = {*price, nowMs};
    return price;
  } catch (const Error&) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto held = cache_.find(caip2); held != cache_.end()) return held->second.first;
    throw;
  }
}

}  // namespace signing::broadcast
