// Who may run an activity, given its votes so far. The policy engine implements it
// (gateway/policy/engine.hpp); the decision says allow, deny (with why) or wait for more
// approvals, and carries the per-policy outcomes that are stored for get_policy_evaluations.
#pragma once

#include <string>

#include "signet/plugin.hpp"

namespace signet {

struct Decision {
  enum class Kind { kAllow, kDeny, kConsensusNeeded };
  Kind kind = Kind::kDeny;
  std::string reason;
  json::Array evaluations;  // [{policyId, outcome}]
};

struct AuthorizationRequest {
  const ActivitySpec* spec = nullptr;
  std::string organizationId;
  json::Object parameters;
  json::Array votes;  // v1Vote objects; the submitter's approval is the first
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Decision decide(Db& db, const AuthorizationRequest& request) = 0;
};

}  // namespace signet
