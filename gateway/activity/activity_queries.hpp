// get_activity, list_activities and list_app_proofs.
#pragma once

#include "signet/plugin.hpp"

namespace signet::activity_queries {
json::Object getActivity(RequestContext& ctx, const json::Object& body);
json::Object listActivities(RequestContext& ctx, const json::Object& body);
// list_app_proofs: the proofs stored with an activity of the organization (those submitted with
// generateAppProofs); an empty list for one without.
json::Object listAppProofs(RequestContext& ctx, const json::Object& body);
}  // namespace signet::activity_queries
