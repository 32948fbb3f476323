// Which MFA policy binds each voter of an activity, and whether what that voter presented
// meets it (the public docs' "MFA policies" and "MFA and consensus"):
// - MFA is evaluated for the user who stamped: each voter's own policies, root users included.
// - A voter's policies are tried in `order` (lowest first); the first whose condition holds is
//   the one enforced, and evaluation stops there. A condition that errors counts as holding:
//   MFA fails closed, like policies.
// - Every step must be met by something the voter presented on this activity (the submission's
//   stamp and their approve_activity stamps); a presentation may meet several steps.
#pragma once

#include <functional>
#include <optional>

#include "mfa/mfa_store.hpp"
#include "policy/value.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet::mfa {

struct VoterMfa {
  std::string userId;
  std::optional<MfaPolicyRecord> enforced;  // none: no policy of the voter applies
  bool satisfied = true;
  std::vector<Method> satisfiedMethods;  // what the voter presented that meets some step
};

// The condition facts and the activity's presentations are read only when some voter has a
// policy to evaluate (most activities: none, and no query beyond the voters' policies).
using FactsSource = std::function<const policy::Fields&()>;
using PresentationsSource = std::function<const std::vector<Presentation>&()>;

std::vector<VoterMfa> checkVoters(DirectoryView& directory,
                                  const std::vector<std::string>& voterIds,
                                  const PresentationsSource& presented, const FactsSource& facts);

// v1MfaStatus for a voter a policy applies to.
json::Object statusJson(const VoterMfa& voter);

}  // namespace signet::mfa
