// The activity log over the API: the latest checkpoint, an inclusion proof for an activity of
// the caller's organization, a consistency proof between two tree sizes. Queries, so any key of
// an organization may ask; an inclusion proof only for the organization's own activities.
#pragma once

#include "signet/plugin.hpp"

namespace signet::log_queries {

json::Object getCheckpoint(RequestContext& ctx, const json::Object& body);
// An activity's inclusion proof without the organization's scope (`signet log prove`): body is
// {treeSize?, leafIndex?}, as the query takes them.
json::Object inclusionProof(Db& db, Keyring& keyring, const std::string& activityId,
                            const json::Object& body);
json::Object getInclusionProof(RequestContext& ctx, const json::Object& body);
json::Object getConsistencyProof(RequestContext& ctx, const json::Object& body);

}  // namespace signet::log_queries
