// Policies as stored: name unique per organization, effect, condition and consensus
// expressions (empty means "always"), notes. Expressions are parsed before they are stored.
#pragma once

#include <set>

#include <optional>
#include <string>
#include <vector>

#include "signet/db.hpp"
#include "signet/json.hpp"

namespace signet::policy {

struct PolicyRecord {
  std::string id;
  std::string organizationId;
  std::string name;
  std::string effect;  // EFFECT_ALLOW | EFFECT_DENY
  std::string condition;
  std::string consensus;
  std::string time;  // when the policy is active (empty: always)
  std::string notes;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

std::vector<PolicyRecord> policiesOf(Db& db, const std::string& organizationId);
std::optional<PolicyRecord> findPolicy(Db& db, const std::string& organizationId,
                                       const std::string& id);
// The id of the organization's policy named `name`, if there is one (names are unique in an
// organization), and how many policies the organization has.
std::optional<std::string> policyIdNamed(Db& db, const std::string& organizationId,
                                         const std::string& name);
size_t policyCount(Db& db, const std::string& organizationId);
// Every write below also replaces the organization's policy version (policyVersion), which
// readers compare to know whether a policy set they parsed earlier is still current.
std::string policyVersion(Db& db, const std::string& organizationId);
void notePoliciesChanged(Db& db, const std::string& organizationId);
void insertPolicy(Db& db, const PolicyRecord& p);
void updatePolicy(Db& db, const PolicyRecord& p);
size_t deletePolicy(Db& db, const std::string& organizationId, const std::string& id);
json::Object policyJson(const PolicyRecord& p);

// Parses a condition, consensus or time expression and checks the keywords it reads and the
// literal arguments of Timestamp() and CronSpan(); InvalidArgument naming `field` with the
// parser's message ("invalid policy condition: ..."). A condition may also read the keywords
// that enabled modules' fact providers declare (Services::factKeywords).
void validateExpression(const std::string& expression, const std::string& kind,
                        const std::string& field, const std::set<std::string>& moduleKeywords = {});

// The keywords that belong to the core (activity, and the consensus and time keywords): no
// module may declare one.
const std::set<std::string>& builtinKeywords();

}  // namespace signet::policy
