// The policy activities and queries: create_policy (V3), create_policies, update_policy (V2),
// delete_policy, delete_policies, get_policy, list_policies, get_policy_evaluations.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::policy {
inline constexpr size_t kMaxPoliciesPerOrganization = 100;

struct CreatePolicyParameters {
  std::string policyName, effect;
  std::optional<std::string> condition, consensus, time, notes;
};
struct CreatePoliciesParameters {
  std::vector<CreatePolicyParameters> policies;
};
struct UpdatePolicyParameters {
  std::string policyId;
  std::optional<std::string> policyName, policyEffect, policyCondition, policyConsensus,
      policyNotes, time;
};
struct DeletePolicyParameters {
  std::string policyId;
};
struct DeletePoliciesParameters {
  std::vector<std::string> policyIds;
};
const Shape<CreatePolicyParameters>& createPolicyShape();  // nested by create_policies
extern const Shape<CreatePoliciesParameters> kCreatePolicies;
extern const Shape<UpdatePolicyParameters> kUpdatePolicy;
extern const Shape<DeletePolicyParameters> kDeletePolicy;
extern const Shape<DeletePoliciesParameters> kDeletePolicies;

json::Object createPolicy(ActivityContext& ctx, const CreatePolicyParameters& params);
json::Object createPolicies(ActivityContext& ctx, const CreatePoliciesParameters& params);
json::Object updatePolicyHandler(ActivityContext& ctx, const UpdatePolicyParameters& params);
json::Object deletePolicyHandler(ActivityContext& ctx, const DeletePolicyParameters& params);
json::Object deletePolicies(ActivityContext& ctx, const DeletePoliciesParameters& params);
json::Object getPolicy(RequestContext& ctx, const json::Object& body);
json::Object listPolicies(RequestContext& ctx, const json::Object& body);
json::Object getPolicyEvaluations(RequestContext& ctx, const json::Object& body);
}  // namespace signet::policy
