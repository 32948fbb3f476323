// The policy activities and queries: create_policy (V3), create_policies, update_policy (V2),
// delete_policy, delete_policies, get_policy, list_policies, get_policy_evaluations.
#pragma once

#include "signet/plugin.hpp"

namespace signet::policy {
inline constexpr size_t kMaxPoliciesPerOrganization = 100;

json::Object createPolicy(ActivityContext& ctx, const json::Object& params);
json::Object createPolicies(ActivityContext& ctx, const json::Object& params);
json::Object updatePolicyHandler(ActivityContext& ctx, const json::Object& params);
json::Object deletePolicyHandler(ActivityContext& ctx, const json::Object& params);
json::Object deletePolicies(ActivityContext& ctx, const json::Object& params);
json::Object getPolicy(RequestContext& ctx, const json::Object& body);
json::Object listPolicies(RequestContext& ctx, const json::Object& body);
json::Object getPolicyEvaluations(RequestContext& ctx, const json::Object& body);
}  // namespace signet::policy
