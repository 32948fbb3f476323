// The core's IdentityServices (plugin.hpp): what sign-in modules use instead of the core's
// tables.
#pragma once

#include "signet/plugin.hpp"

namespace signet {

IdentityServices identityServices();

}  // namespace signet
