// Sessions issued under a session profile act only within the profile's scope, a policy
// condition over the activity (the public docs' session profiles: a recovery session that can
// only register an authenticator, a signing session that can only sign). The engine asks this
// for each vote: a refused submission is denied, a refused approval does not count.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "gateway.hpp"
#include "policy/value.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet::policy {

// Why the vote's credential may not take part in this activity: it is a session key of a
// profile whose scope is false for the activity's facts, errors (fail closed), or can no
// longer be read (the profile is gone, or the module that keeps profiles is not enabled).
// nullopt for every other credential, and for sessions the scope allows.
std::optional<std::string> sessionScopeRefusal(Gateway& gateway, DirectoryView& directory,
                                               const json::Object& vote,
                                               const std::function<const Fields&()>& facts);

}  // namespace signet::policy
