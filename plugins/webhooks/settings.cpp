#include "settings.hpp"

#include "signet/error.hpp"

namespace webhooks {

using namespace signet;

namespace {
const std::string kPath = "plugins.settings.webhooks";

}  // namespace

Settings parseSettings(const json::Object& o) {
  Settings s;
  s.allowInsecureUrls = json::optionalBool(o, "allowInsecureUrls", kPath, false);
  s.timeoutSeconds = json::optionalIntInRange(o, "timeoutSeconds", kPath, s.timeoutSeconds, 1, 120);
  s.senders = json::optionalIntInRange(o, "senders", kPath, s.senders, 1, 128);
  s.maxBacklogPerEndpoint = json::optionalIntInRange(o, "maxBacklogPerEndpoint", kPath,
                                                     s.maxBacklogPerEndpoint, 1, 10'000'000);
  s.maxEndpointsPerOrganization = json::optionalIntInRange(o, "maxEndpointsPerOrganization", kPath,
                                                           s.maxEndpointsPerOrganization, 1, 1000);
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
