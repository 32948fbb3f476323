// The core's IdentityServices (plugin.hpp): what sign-in modules use instead of the core's
// tables.
#pragma once

#include "plugins/catalog.hpp"
#include "signet/plugin.hpp"

namespace signet {

IdentityServices identityServices(const Catalog& catalog);

}  // namespace signet
