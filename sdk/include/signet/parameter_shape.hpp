// Checks an intent's parameters against the shapes its activity declares (ParamSpec), before
// the policy engine runs: a malformed intent is refused with InvalidArgument naming the field,
// the expected shape and what came, and nothing is stored.
#pragma once

#include <vector>

#include "signet/plugin.hpp"

namespace signet {

// path names the object in messages: "parameters", or "parameters.wallet" for a nested one.
void checkParameterShapes(const std::vector<ParamSpec>& shapes, const json::Object& parameters,
                          const std::string& path = "parameters");
// InvalidArgument naming the first field of `parameters` that `shapes` does not declare (for a
// shape whose object is closed, ParamSpec::closed).
void checkNoOtherFields(const std::vector<ParamSpec>& shapes, const json::Object& parameters,
                        const std::string& path = "parameters");
// One field, its value as it came (empty when absent or null), at the path messages name.
void checkParameter(const ParamSpec& shape, const Poco::Dynamic::Var& value,
                    const std::string& field);

}  // namespace signet
