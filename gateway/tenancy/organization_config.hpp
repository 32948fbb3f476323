// Organization-wide settings: update_root_quorum, set_organization_feature,
// remove_organization_feature, update_organization_name, get_organization_configs.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::organization_config {
struct UpdateRootQuorumParameters {
  int64_t threshold = 0;
  std::vector<std::string> userIds;
};
struct FeatureParameters {
  std::string name;
  std::optional<std::string> value;  // set_organization_feature's; remove's has none
};
struct UpdateOrganizationNameParameters {
  std::string organizationName;
};
extern const Shape<UpdateRootQuorumParameters> kUpdateRootQuorum;
extern const Shape<FeatureParameters> kSetFeature, kRemoveFeature;
extern const Shape<UpdateOrganizationNameParameters> kUpdateOrganizationName;

json::Object updateRootQuorum(ActivityContext& ctx, const UpdateRootQuorumParameters& params);
json::Object setFeature(ActivityContext& ctx, const FeatureParameters& params);
json::Object removeFeature(ActivityContext& ctx, const FeatureParameters& params);
json::Object updateOrganizationName(ActivityContext& ctx,
                                    const UpdateOrganizationNameParameters& params);
json::Object getOrganizationConfigs(RequestContext& ctx, const json::Object& body);
// The features of an organization as [{name, value}].
json::Array features(Db& db, const std::string& organizationId);
}  // namespace signet::organization_config
