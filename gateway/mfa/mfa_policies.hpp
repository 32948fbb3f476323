// The MFA policy activities and queries: create_mfa_policy, update_mfa_policy,
// delete_mfa_policy, get_mfa_policy, get_mfa_policies and get_mfa_status.
#pragma once

#include "signet/plugin.hpp"

namespace signet::mfa {

inline constexpr size_t kMaxPoliciesPerUser = 20;

json::Object createMfaPolicy(ActivityContext& ctx, const json::Object& params);
json::Object updateMfaPolicy(ActivityContext& ctx, const json::Object& params);
json::Object deleteMfaPolicy(ActivityContext& ctx, const json::Object& params);
json::Object getMfaPolicy(RequestContext& ctx, const json::Object& body);
json::Object getMfaPolicies(RequestContext& ctx, const json::Object& body);
json::Object getMfaStatus(RequestContext& ctx, const json::Object& body);

}  // namespace signet::mfa
