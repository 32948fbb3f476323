// The auth-proxy plugin's tables in the coordinator's store.
#pragma once

#include <vector>

#include "signet/db.hpp"

namespace auth_proxy {

std::vector<signet::Migration> migrations();

}  // namespace auth_proxy
