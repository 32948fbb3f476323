#include "settings.hpp"

#include "signet/error.hpp"

namespace webhooks {

using namespace signet;

namespace {
const std::string kPath = "plugins.settings.webhooks";

int bounded(const json::Object& o, const char* key, int fallback, int low, int high) {
  if (!o->has(key)) return fallback;
  int v = json::requireInt(o, key, kPath);
  if (v < low || v > high)
    throw invalidArgument("invalid field " + kPath + "." + key + ": " + std::to_string(v) +
                          " is out of range: from " + std::to_string(low) + " to " +
                          std::to_string(high));
  return v;
}
}  // namespace

Settings parseSettings(const json::Object& o) {
  Settings s;
  s.allowInsecureUrls = json::optionalBool(o, "allowInsecureUrls", kPath, false);
  s.timeoutSeconds = bounded(o, "timeoutSeconds", s.timeoutSeconds, 1, 120);
  s.concurrentPerEndpoint = bounded(o, "concurrentPerEndpoint", s.concurrentPerEndpoint, 1, 16);
  s.senders = bounded(o, "senders", s.senders, 1, 128);
  s.maxEndpointsPerOrganization =
      bounded(o, "maxEndpointsPerOrganization", s.maxEndpointsPerOrganization, 1, 1000);
  if (auto list = json::optionalArray(o, "retryScheduleSeconds", kPath)) {
    s.retryScheduleSeconds.clear();
    for (size_t i = 0; i < list->size(); ++i) {
      auto v = list->get(i);
      if (!v.isInteger() || v.convert<int64_t>() < 0 || v.convert<int64_t>() > 86400 * 7)
        throw invalidArgument("invalid field " + kPath + ".retryScheduleSeconds[" +
                              std::to_string(i) + "]: seconds from 0 to 604800");
      s.retryScheduleSeconds.push_back(v.convert<int64_t>());
    }
  }
  return s;
}

}  // namespace webhooks
