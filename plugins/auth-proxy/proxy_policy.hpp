// What the proxy user may do, and nothing more: the policy enable_auth_proxy writes for it.
//
//   effect    EFFECT_ALLOW
//   consensus approvers.any(user, user.id == '<proxy user id>')
//   condition activity.type in [<the activity types below>]
//
// The proxy user is not in the root quorum and has no other policy, so every other activity it
// submits is denied. The forwarded types are those the proxy endpoints map to: OTP (init,
// verify, login), OAuth logins, the OAuth 2.0 code exchange, and sub-organization sign-up.
// Queries are not governed by policies: like any user of the organization, the proxy user can
// read it (the proxy reads list_suborgs, list_verified_suborgs, list_oauth2_credentials and
// get_activity).
#pragma once

#include <string>
#include <vector>

#include "signet/json.hpp"

namespace auth_proxy {

const std::vector<std::string>& forwardedActivityTypes();

// The create_policy parameters of the proxy user's policy.
signet::json::Object proxyPolicyParameters(const std::string& userId, const std::string& configId);

}  // namespace auth_proxy
