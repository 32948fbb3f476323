#pragma once

#include <vector>

#include "signet/plugin.hpp"

namespace fiat_onramp {

std::vector<signet::Migration> migrations();

}  // namespace fiat_onramp
