// Who may run an activity, given its votes so far. The policy engine implements it
// (gateway/policy/engine.hpp); the decision says allow, deny (with why), wait for more
// approvals or wait for a voter's MFA factors, and carries the per-policy outcomes and MFA
// statuses that are stored for get_policy_evaluations and get_mfa_status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/plugin.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet {

struct Decision {
  // kAuthenticatorsNeeded: a voter's MFA policy asks for factors not presented yet.
  enum class Kind { kAllow, kDeny, kConsensusNeeded, kAuthenticatorsNeeded };
  Kind kind = Kind::kDeny;
  std::string reason;
  json::Array evaluations;  // [{policyId, outcome}]
  json::Array mfaStatuses;  // v1MfaStatus of each voter an MFA policy binds
};

struct AuthorizationRequest {
  const ActivitySpec* spec = nullptr;
  std::string organizationId;
  json::Object parameters;
  json::Array votes;  // v1Vote objects; the submitter's approval is the first
  // What the votes' stamps presented for MFA, the vote being cast included (the activity
  // record's, which stores them). Null: nothing.
  const std::vector<mfa::Presentation>* presentations = nullptr;
  // Where the activity's facts hooks keep what its handler reuses (RequestContext::requestCache):
  // the pipeline's, for a decision the handler runs right after on the same store; else none.
  RequestCache* cache = nullptr;
  // Where the voters' keys and MFA policies, the organization and its root quorum are read:
  // through the directory cache on a snapshot, from the store inside a write transaction.
  // Null: from the store.
  DirectoryView* directory = nullptr;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Decision decide(Db& db, const AuthorizationRequest& request) = 0;
};

}  // namespace signet
