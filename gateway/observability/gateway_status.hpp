// signet_get_gateway_status: what the operator console's plugin and health panels show. Any
// user of an organization may read it, as it reads whoami: the gateway's version and clock, the
// store's answer, the enabled modules, and every activity type whose rollout is not general,
// with whether it admits the asking organization. Other organizations' canary lists are not in
// it.
#pragma once

#include "signet/json.hpp"
#include "signet/plugin.hpp"

namespace signet {

class Catalog;

json::Object gatewayStatus(const Catalog& catalog, RequestContext& ctx, const json::Object& body);

}  // namespace signet
