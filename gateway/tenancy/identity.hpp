// whoami and get_user.
#pragma once

#include "signet/plugin.hpp"

namespace signet::identity {
json::Object whoami(RequestContext& ctx, const json::Object& body);
json::Object getUser(RequestContext& ctx, const json::Object& body);
}  // namespace signet::identity
