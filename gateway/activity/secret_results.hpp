// Result fields a row declares bearer credentials (ActivitySpec::secretResults: verify_otp's
// verification token, oauth2_authenticate's ID token) are never stored in clear. The activity's
// stored result shows "<redacted>" in their place, and the value is sealed in the keyring
// (AES-256-GCM under the master key, bound to `activity-result:<activity id>:<field>`), so that a
// copy of the database without the master key spends nothing. get_activity and list_activities
// open them again for a caller allowed to read the organization's activities, as the API
// requires; what is copied elsewhere (webhook events) keeps "<redacted>".
#pragma once

#include <span>

#include "activity/activity_store.hpp"
#include "signet/plugin.hpp"

namespace signet::activities {

// Whether the row declares any secret result field.
inline bool hasSecretResults(const ActivitySpec& spec) {
  return !spec.secretResults.empty();
}
// `record` as it is stored: its secret result fields "<redacted>".
ActivityRecord withResultsRedacted(const ActivitySpec& spec, const ActivityRecord& record);
// Seals the secret result fields `record` holds in clear (once its row is written).
void sealResults(Keyring& keyring, const ActivitySpec& spec, const ActivityRecord& record);
// Activities stored before secrets were sealed (a store from an earlier version) hold them in
// clear: this seals and redacts them, the results of `specs`' activities and the secret
// parameters of those still waiting for votes. Returns how many activities changed.
int sealStoredInClear(Db& db, Keyring& keyring, const std::vector<const ActivitySpec*>& specs);

// Puts the sealed values back into stored records' results, for a caller allowed to read them:
// each "<redacted>" field with a sealed value (the row that declared it need not be enabled).
// The cells of all of them are read from `db`, the store `keyring` seals in, by one statement
// (none when no field is redacted), so that a page of activities costs one read, not one a secret.
void openResults(Db& db, Keyring& keyring, std::span<ActivityRecord> records);

}  // namespace signet::activities
