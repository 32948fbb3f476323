// An organization's policies with their expressions parsed, as the engine evaluates them.
// Parsing (or finding the parsed tree of) 100 policies' texts cost more than evaluating
// them, and loading the rows is a query per activity; a PolicySetCache keeps each
// organization's set until its policy version (policy_store.hpp) changes.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/policy_store.hpp"
#include "policy/syntax.hpp"

namespace signet::policy {

struct CompiledPolicy {
  PolicyRecord record;
  // Null for an empty clause, and for a stored text that no longer parses (never accepted
  // on write); evaluation re-parses such a text to raise its error.
  NodePtr condition, consensus, time;
  // Whether another policy of the set has the very same clause (the same tree).
  bool conditionRepeats = false, consensusRepeats = false, timeRepeats = false;
};
using PolicySet = std::vector<CompiledPolicy>;

// Policies with the same clause text share one tree, which lets the evaluator compute a
// repeated clause once per activity.
PolicySet compilePolicies(std::vector<PolicyRecord> records);

// One per gateway (it caches what that gateway's database holds). Thread-safe.
class PolicySetCache {
 public:
  std::shared_ptr<const PolicySet> policiesOf(Db& db, const std::string& organizationId);

 private:
  struct Entry {
    std::string version;
    std::shared_ptr<const PolicySet> set;
  };
  static constexpr size_t kMaxOrganizations = 4096;  // past it, start over
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace signet::policy
