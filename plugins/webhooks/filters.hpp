// The filter language of a subscription's filtersJson (the public API leaves its meaning open).
// An ACTIVITY_UPDATES filter is a JSON object with two optional keys:
//   "activityTypes": ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", ...]  only these exact types
//   "statuses":      ["ACTIVITY_STATUS_COMPLETED", ...]          only changes to these statuses
// An event passes when it matches every key given; an empty or absent filter passes all.
// Any other key, a value of another shape, or a name outside those vocabularies is refused.
#pragma once

#include <string>
#include <vector>

namespace webhooks {

struct Filter {
  std::vector<std::string> activityTypes;
  std::vector<std::string> statuses;
};

// InvalidArgument naming `field` for anything the language cannot express.
Filter parseFilter(const std::string& filtersJson, const std::string& field);
bool matches(const Filter& filter, const std::string& activityType, const std::string& status);

}  // namespace webhooks
