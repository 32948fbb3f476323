// Staged rollout of activity versions. Every activity type has a state: the default its module
// declares (ActivitySpec::rollout), or the operator's override (`signet rollout set`, stored
// in activity_rollouts). The gate admits or refuses a submission by that state before anything
// is stored:
//   general     admitted
//   canary      admitted for the listed organizations and for those whose stable bucket
//               (sha256 of the organization id, mod 100) is below the percentage; others are
//               refused, naming a version they may use
//   deprecated  admitted, with Deprecation, Sunset and Link (successor-version) headers
//   disabled    refused, naming the version
//   retired     refused, naming the replacement
// A sub-organization follows its parent's assignment. Overrides are re-read from the store at
// most once a second, so a change reaches every gateway on the store within two seconds.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "signet/plugin.hpp"

namespace signet {

class Gateway;

struct RolloutAssignment {
  RolloutState state = RolloutState::kGeneral;
  std::set<std::string> organizations;  // canary: always admitted
  int percent = 0;                      // canary: the share of other organizations admitted
  std::string replacement;              // deprecated, retired: the type to use instead
  int64_t sinceMs = 0;                  // deprecated: since when
  int64_t sunsetMs = 0;                 // deprecated: when it goes (0: not said)
  bool byOperator = false;              // an override, not the module's default
};

const char* rolloutStateName(RolloutState state);
std::optional<RolloutState> parseRolloutState(const std::string& name);
// 0..99, the same for an organization id on every gateway and every run.
int rolloutBucket(const std::string& organizationId);

// The operator's overrides, in the store.
std::map<std::string, RolloutAssignment> loadRollouts(Db& db);
void storeRollout(Db& db, const std::string& type, const RolloutAssignment& assignment,
                  int64_t nowMs);
void clearRollout(Db& db, const std::string& type);

// The module's default for a spec, as an assignment.
RolloutAssignment rolloutDefault(const ActivitySpec& spec);

// One activity type's rollout as it stands for one organization: what the operator console
// shows, read-only.
struct RolloutView {
  std::string type;
  RolloutAssignment assignment;
  bool admitted = true;  // whether a submission from the organization passes the gate
};
// Every enabled activity type whose state is not general, as it stands for `organizationId`
// (a sub-organization follows its parent), ordered by type.
std::vector<RolloutView> rolloutsFor(Db& db, const std::vector<const ActivitySpec*>& specs,
                                     const std::string& organizationId);

using ResponseHeaders = std::vector<std::pair<std::string, std::string>>;

class RolloutGate {
 public:
  explicit RolloutGate(Gateway& gateway) : gateway_(gateway) {}
  // Admits `spec` for `organizationId` (read in `db`), returning the headers its response
  // carries; throws the refusal (FailedPrecondition naming the version) otherwise.
  ResponseHeaders admit(Db& db, const ActivitySpec& spec, const std::string& organizationId);

 private:
  using Overrides = std::map<std::string, RolloutAssignment>;
  // The overrides as last read, re-read when a second old. Shared, so that a request keeps the
  // snapshot it decided on while another request replaces it.
  std::shared_ptr<const Overrides> overrides(Db& db);
  std::string replacementFor(const Overrides& overrides, const ActivitySpec& spec,
                             const RolloutAssignment& a) const;
  std::string refusal(const Overrides& overrides, const ActivitySpec& spec,
                      const std::string& organizationId, const std::string& assigned) const;

  Gateway& gateway_;
  std::mutex mutex_;
  std::shared_ptr<const Overrides> overrides_;
  std::chrono::steady_clock::time_point loadedAt_;
};

}  // namespace signet
