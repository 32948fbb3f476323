// Parameters a row declares secret (ParamSpec::secret: an OTP code, a verification token) are
// kept only while the activity may still run, since a pending activity needs them when its
// votes arrive. Once it has completed, failed or been rejected, its stored intent and the
// submitter's signed request show "<redacted>" in their place, so that no one who may read the
// organization's activities finds a live code in a failed one.
//
// The submitter's stored vote then no longer verifies against its signature: for a single-use
// secret, not keeping it is worth more than that proof.
#pragma once

#include "activity/activity_store.hpp"
#include "signet/plugin.hpp"

namespace signet::activities {

inline constexpr const char* kRedacted = "<redacted>";

// Redacts `record` in memory when it is terminal and the row declares secrets; true when
// anything changed (store the intent with storeIntent; votes go with update()).
bool redactSecrets(const ActivitySpec& spec, ActivityRecord& record);
void storeIntent(Db& db, const ActivityRecord& record);

}  // namespace signet::activities
