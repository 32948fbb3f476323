#include "filters.hpp"

#include <algorithm>

#include "signet/error.hpp"
#include "signet/json.hpp"

namespace webhooks {

using namespace signet;

namespace {
const std::vector<std::string> kStatuses = {"ACTIVITY_STATUS_CREATED",
                                            "ACTIVITY_STATUS_PENDING",
                                            "ACTIVITY_STATUS_COMPLETED",
                                            "ACTIVITY_STATUS_FAILED",
                                            "ACTIVITY_STATUS_CONSENSUS_NEEDED",
                                            "ACTIVITY_STATUS_REJECTED",
                                            "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"};

bool contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}
}  // namespace

Filter parseFilter(const std::string& filtersJson, const std::string& field) {
  Filter f;
  if (filtersJson.find_first_not_of(" \t\r\n") == std::string::npos) return f;
  json::Object o;
  try {
    o = json::parseObject(filtersJson, field);
  } catch (const Error&) {
    throw invalidArgument("invalid field " + field + ": " + filtersJson +
                          " is not a JSON object (see the webhooks filter language)");
  }
  for (const auto& key : o->getNames())
    if (key != "activityTypes" && key != "statuses")
      throw invalidArgument("invalid field " + field + ": unknown key \"" + key +
                            "\"; a filter has activityTypes and statuses");
  f.activityTypes = json::optionalStringArray(o, "activityTypes", field);
  f.statuses = json::optionalStringArray(o, "statuses", field);
  for (const auto& t : f.activityTypes)
    if (t.rfind("ACTIVITY_TYPE_", 0) != 0 || t.size() > 128)
      throw invalidArgument("invalid field " + field + ".activityTypes: \"" + t +
                            "\" is not an ACTIVITY_TYPE_ name");
  for (const auto& s : f.statuses)
    if (!contains(kStatuses, s))
      throw invalidArgument("invalid field " + field + ".statuses: \"" + s +
                            "\" is not an ACTIVITY_STATUS_ value");
  return f;
}

bool matches(const Filter& filter, const std::string& activityType, const std::string& status) {
  return (filter.activityTypes.empty() || contains(filter.activityTypes, activityType)) &&
         (filter.statuses.empty() || contains(filter.statuses, status));
}

}  // namespace webhooks
