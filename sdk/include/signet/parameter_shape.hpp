// Checks an intent's parameters against the shapes its activity declares (ParamSpec), before
// the policy engine runs: a malformed intent is refused with InvalidArgument naming the field,
// the expected shape and what came, and nothing is stored.
#pragma once

#include <vector>

#include "signet/plugin.hpp"

namespace signet {

void checkParameterShapes(const std::vector<ParamSpec>& shapes, const json::Object& parameters);

}  // namespace signet
