// Passkeys: create_authenticators (V2), delete_authenticators, get_authenticator,
// get_authenticators.
#pragma once

#include "signet/plugin.hpp"

namespace signet::authenticators {
json::Object createAuthenticators(ActivityContext& ctx, const json::Object& params);
json::Object deleteAuthenticators(ActivityContext& ctx, const json::Object& params);
json::Object recoverUser(ActivityContext& ctx, const json::Object& params);
json::Object getAuthenticator(RequestContext& ctx, const json::Object& body);
json::Object getAuthenticators(RequestContext& ctx, const json::Object& body);
}  // namespace signet::authenticators
