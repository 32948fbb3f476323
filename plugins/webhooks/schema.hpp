// The webhooks plugin's tables.
#pragma once

#include <vector>

#include "signet/db.hpp"

namespace webhooks {

std::vector<signet::Migration> migrations();

}  // namespace webhooks
