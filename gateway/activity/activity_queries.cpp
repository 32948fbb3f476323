#include "activity/activity_queries.hpp"

#include <algorithm>

#include "activity/activity_store.hpp"
#include "activity/secret_results.hpp"

namespace signet::activity_queries {

namespace {
constexpr const char* kStatuses[] = {"ACTIVITY_STATUS_CREATED",
                                     "ACTIVITY_STATUS_PENDING",
                                     "ACTIVITY_STATUS_COMPLETED",
                                     "ACTIVITY_STATUS_FAILED",
                                     "ACTIVITY_STATUS_CONSENSUS_NEEDED",
                                     "ACTIVITY_STATUS_REJECTED",
                                     "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"};
}

json::Object getActivity(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "activityId", "");
  auto record = activities::find(ctx.db(), ctx.organizationId(), id);
  if (!record)
    throw notFound("activity " + id + " not found in organization " + ctx.organizationId());
  // The caller may read the organization's activities, secrets included.
  activities::openResults(ctx.db(), ctx.keyring(), std::span(&*record, 1));
  json::Object out = json::object();
  out->set("activity", activities::toJson(*record, ctx.caller()));
  return out;
}

json::Object listAppProofs(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "activityId", "");
  auto record = activities::find(ctx.db(), ctx.organizationId(), id);
  if (!record)
    throw notFound("activity " + id + " (activityId) not found in organization " +
                   ctx.organizationId());
  json::Object out = json::object();
  out->set("appProofs", record->appProofs ? record->appProofs : json::array());
  return out;
}

json::Object listActivities(RequestContext& ctx, const json::Object& body) {
  ActivityFilter filter;
  filter.statuses = json::optionalStringArray(body, "filterByStatus", "");
  for (size_t i = 0; i < filter.statuses.size(); ++i)
    if (std::find(std::begin(kStatuses), std::end(kStatuses), filter.statuses[i]) ==
        std::end(kStatuses))
      throw invalidArgument("invalid field filterByStatus[" + std::to_string(i) + "]: \"" +
                            filter.statuses[i] + "\" is not an ACTIVITY_STATUS_* value");
  filter.types = json::optionalStringArray(body, "filterByType", "");
  filter.page = parsePagination(body);
  auto page = activities::list(ctx.db(), ctx.organizationId(), filter);
  activities::openResults(ctx.db(), ctx.keyring(), page);
  json::Array list = json::array();
  for (const auto& a : page) list->add(activities::toJson(a, ctx.caller()));
  json::Object out = json::object();
  out->set("activities", list);
  return out;
}

}  // namespace signet::activity_queries
