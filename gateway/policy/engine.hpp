// The policy engine (as Turnkey documents its policy engine): a root quorum's approvals bypass
// policies; otherwise every policy of the organization is evaluated (no short-circuit, errors fail
// closed), an explicit DENY wins, then an ALLOW, then pending consensus, else implicit deny.
// Root-quorum-only activity types ignore policies.
#pragma once

#include <functional>
#include <string_view>
#include "activity/authorizer.hpp"
#include "gateway.hpp"

#include "policy/policy_set.hpp"
#include "policy/value.hpp"

namespace signet::policy {

class PolicyEngine : public Authorizer {
 public:
  explicit PolicyEngine(Gateway& gateway) : gateway_(gateway) {}
  // MFA first (mfa/mfa_check.hpp): it binds root users too, and only the approvals of voters
  // whose MFA is met count towards the root quorum and consensus. The submitter's own vote
  // counts while their MFA is pending, so that an activity the policies deny fails at once;
  // anything else waits for the submitter's factors (AUTHENTICATORS_NEEDED), and so does an
  // activity waiting for consensus while an approver's factors are outstanding.
  Decision decide(Db& db, const AuthorizationRequest& request) override;

 private:
  Decision decidePolicies(DirectoryView& directory, const AuthorizationRequest& request,
                          const std::function<const Fields&()>& facts);

  Gateway& gateway_;
  PolicySetCache policySets_;
};

// The condition keywords the core provides: activity {type, kind, resource, action, params}
// (params with snake_case keys), merged with every enabled module's facts.
Fields conditionFacts(Gateway& gateway, Db& db, const AuthorizationRequest& request);
// The consensus keywords: approvers (distinct approving users) and credentials (each
// approving vote's credential).
Fields consensusFacts(Db& db, const json::Array& votes);

// Evaluates a set of policies over facts (the part the benchmark measures).
// Policy ids are views into the evaluated PolicySet, which must outlive the verdicts (a string
// copy per outcome was a tenth of the evaluation).
struct PolicyVerdicts {
  std::vector<std::pair<std::string_view, const char*>> outcomes;  // (policyId, OUTCOME_*)
  std::vector<std::string_view> allows, pending;
  std::vector<std::string> denials, errors;
};
PolicyVerdicts evaluatePolicies(const PolicySet& policies, const Fields& condition,
                                const Fields& consensus, const Fields& time);

}  // namespace signet::policy
