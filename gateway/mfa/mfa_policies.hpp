// The MFA policy activities and queries: create_mfa_policy, update_mfa_policy,
// delete_mfa_policy, get_mfa_policy, get_mfa_policies and get_mfa_status.
#pragma once

#include "mfa/methods.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::mfa {

inline constexpr size_t kMaxPoliciesPerUser = 20;

// create_mfa_policy's and update_mfa_policy's: update changes what it is given.
struct MfaPolicyParameters {
  std::string userId;
  std::optional<std::string> mfaPolicyId;  // update's
  std::optional<std::string> mfaPolicyName, condition, notes;
  std::optional<std::vector<StepParameters>> requiredAuthenticationMethods;
  std::optional<int64_t> order;
};
struct DeleteMfaPolicyParameters {
  std::string userId, mfaPolicyId;
};
extern const Shape<MfaPolicyParameters> kCreateMfaPolicy, kUpdateMfaPolicy;
extern const Shape<DeleteMfaPolicyParameters> kDeleteMfaPolicy;

json::Object createMfaPolicy(ActivityContext& ctx, const MfaPolicyParameters& params);
json::Object updateMfaPolicy(ActivityContext& ctx, const MfaPolicyParameters& params);
json::Object deleteMfaPolicy(ActivityContext& ctx, const DeleteMfaPolicyParameters& params);
json::Object getMfaPolicy(RequestContext& ctx, const json::Object& body);
json::Object getMfaPolicies(RequestContext& ctx, const json::Object& body);
json::Object getMfaStatus(RequestContext& ctx, const json::Object& body);

}  // namespace signet::mfa
