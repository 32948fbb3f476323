// Organization-wide settings: update_root_quorum, set_organization_feature,
// remove_organization_feature, update_organization_name, get_organization_configs.
#pragma once

#include "signet/plugin.hpp"

namespace signet::organization_config {
json::Object updateRootQuorum(ActivityContext& ctx, const json::Object& params);
json::Object setFeature(ActivityContext& ctx, const json::Object& params);
json::Object removeFeature(ActivityContext& ctx, const json::Object& params);
json::Object updateOrganizationName(ActivityContext& ctx, const json::Object& params);
json::Object getOrganizationConfigs(RequestContext& ctx, const json::Object& body);
// The features of an organization as [{name, value}].
json::Array features(Db& db, const std::string& organizationId);
}  // namespace signet::organization_config
