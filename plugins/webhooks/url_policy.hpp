// Where deliveries may go. An endpoint URL must be https, name a host and carry no user-info or
// fragment; the addresses it reaches must be public (signet/egress.hpp says which are not:
// loopback, private, link-local with the cloud metadata service, CGNAT, multicast, reserved,
// unique and site-local, and the IPv6 forms that carry any of those). An address literal or a
// local name is refused when the endpoint is registered, a clear 400; a name is resolved and
// checked by the egress policy at every attempt, on the address actually connected to, so that
// a name that later resolves elsewhere (DNS rebinding) gains nothing.
// allowInsecureUrls (an operator's setting for development) lifts the https and address rules.
#pragma once

#include <string>

#include "signet/egress.hpp"

namespace webhooks {

// The URL as stored, or InvalidArgument naming `field` and the value.
std::string checkUrl(const std::string& url, const std::string& field, bool allowInsecure);

// How an attempt to `url` may go: its deadline and what the address rules allow.
signet::egress::Rules deliveryRules(bool allowInsecure, int timeoutSeconds);

}  // namespace webhooks
