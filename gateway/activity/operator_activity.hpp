// Activities the operator of a data directory runs from the CLI (`signet auth-proxy enable`),
// whether or not a gateway serves the store. The operator holds the master key and the store,
// so no stamp or policy stands between them and the store; what they do is still recorded as an
// activity of the organization (a COMPLETED row whose vote names the operator), so that
// get_activities shows it beside the API's.
#pragma once

#include <string>

#include "gateway.hpp"

namespace signet {

// Runs the enabled handler of `type` for `organizationId` in one transaction and returns its
// result's fields. NotFound for an unknown organization, FailedPrecondition when no enabled
// module serves the type; the handler's own errors as they are, with nothing written.
json::Object runAsOperator(Gateway& gateway, const std::string& type,
                           const std::string& organizationId, const json::Object& parameters);

// Runs the enabled query at `path` for `organizationId` on a read snapshot.
json::Object queryAsOperator(Gateway& gateway, const std::string& path,
                             const std::string& organizationId);

}  // namespace signet
