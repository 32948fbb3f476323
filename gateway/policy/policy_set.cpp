#include "policy/policy_set.hpp"

namespace signet::policy {

namespace {

// Parsed expressions by text, shared by every set: policies (of any organization) with the
// same clause get the same tree, so ClauseResults can evaluate it once per activity.
NodePtr parsed(const std::string& expression) {
  static std::mutex mutex;
  static std::unordered_map<std::string, NodePtr> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(expression);
  if (it != cache.end()) return it->second;
  if (cache.size() > 20000) cache.clear();  // bounded; expressions are re-parsed on demand
  return cache[expression] = parse(expression);
}

NodePtr parsedOrNull(const std::string& expression) {
  if (expression.empty()) return nullptr;
  try {
    return parsed(expression);
  } catch (const SyntaxError&) {
    return nullptr;
  }
}

void markRepeats(PolicySet& set, NodePtr CompiledPolicy::*clause, bool CompiledPolicy::*repeats) {
  std::unordered_map<const Node*, size_t> uses;
  for (const auto& p : set)
    if (p.*clause) ++uses[(p.*clause).get()];
  for (auto& p : set) p.*repeats = p.*clause && uses[(p.*clause).get()] > 1;
}

}  // namespace

PolicySet compilePolicies(std::vector<PolicyRecord> records) {
  PolicySet set;
  set.reserve(records.size());
  for (auto& r : records) {
    CompiledPolicy p{std::move(r), nullptr, nullptr, nullptr};
    p.condition = parsedOrNull(p.record.condition);
    p.consensus = parsedOrNull(p.record.consensus);
    p.time = parsedOrNull(p.record.time);
    set.push_back(std::move(p));
  }
  markRepeats(set, &CompiledPolicy::condition, &CompiledPolicy::conditionRepeats);
  markRepeats(set, &CompiledPolicy::consensus, &CompiledPolicy::consensusRepeats);
  markRepeats(set, &CompiledPolicy::time, &CompiledPolicy::timeRepeats);
  return set;
}

std::shared_ptr<const PolicySet> PolicySetCache::policiesOf(Db& db,
                                                            const std::string& organizationId) {
  // The version is read first: if a write lands between the two reads, the set is cached
  // under the older version and the next activity, seeing the new one, reloads it.
  std::string version = policyVersion(db, organizationId);
  {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(organizationId);
    if (it != entries_.end() && it->second.version == version) return it->second.set;
  }
  auto set =
      std::make_shared<const PolicySet>(compilePolicies(policy::policiesOf(db, organizationId)));
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxOrganizations) entries_.clear();
  entries_[organizationId] = {version, set};
  return set;
}

}  // namespace signet::policy
