// The core module's numbered migrations: organizations, users, credentials, activities and
// the keyring. Plugins bring their own under their own module name.
#pragma once

#include <vector>

#include "signet/db.hpp"

namespace signet {
std::vector<Migration> coreMigrations();
}
