// get_activity and list_activities.
#pragma once

#include "signet/plugin.hpp"

namespace signet::activity_queries {
json::Object getActivity(RequestContext& ctx, const json::Object& body);
json::Object listActivities(RequestContext& ctx, const json::Object& body);
}  // namespace signet::activity_queries
