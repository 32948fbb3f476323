// Parameters a row declares secret (ParamSpec::secret: an OTP code, a verification token, an ID
// token) are never stored in clear:
//   - While the activity may still run (it awaits votes or factors), the stored intent and the
//     submitter's signed request show "<redacted>", and the values are sealed in the keyring
//     (`activity-intent:<activity id>:<name>`), to be opened when a vote runs the activity.
//   - Once it has completed, failed or been rejected, the intent and the signed request keep
//     "<redacted>" and the sealed values are erased.
//
// The submitter's stored vote then no longer verifies against its signature: for a single-use
// secret, not keeping it is worth more than that proof.
#pragma once

#include "activity/activity_store.hpp"
#include "signet/plugin.hpp"

namespace signet::activities {

inline constexpr const char* kRedacted = "<redacted>";

bool hasSecretParameters(const ActivitySpec& spec);
// Completed, failed or rejected: the activity will not run again.
bool isTerminal(const std::string& status);
// Redacts `record` in memory when it is terminal and the row declares secrets; true when
// anything changed (store the intent with storeIntent; votes go with update()).
bool redactSecrets(const ActivitySpec& spec, ActivityRecord& record);
void storeIntent(Db& db, const ActivityRecord& record);

// For a record that is not terminal: a copy as it is stored, its secrets redacted; and the
// sealing of their values, once its row is written.
ActivityRecord withParametersRedacted(const ActivitySpec& spec, const ActivityRecord& record);
void sealParameters(Keyring& keyring, const ActivitySpec& spec, const ActivityRecord& record);
// Puts the sealed values back into a stored record's intent, to run it.
void openParameters(Keyring& keyring, const ActivitySpec& spec, ActivityRecord& record);
// Once the activity is terminal: the sealed values go.
void eraseSealedParameters(Keyring& keyring, const ActivitySpec& spec,
                           const ActivityRecord& record);

}  // namespace signet::activities
