#include "mfa/mfa_check.hpp"

#include <algorithm>

#include "policy/evaluator.hpp"

namespace signet::mfa {

namespace {
bool conditionHolds(const std::string& condition, const policy::Fields& facts) {
  try {
    return policy::evaluateCondition(*policy::parse(condition), facts);
  } catch (const std::exception&) {
    // An evaluation error, or a stored condition this build no longer parses: the policy
    // applies, so its factors are asked for.
    return true;
  }
}
}  // namespace

std::vector<VoterMfa> checkVoters(DirectoryView& directory,
                                  const std::vector<std::string>& voterIds,
                                  const PresentationsSource& presented, const FactsSource& facts) {
  std::vector<VoterMfa> out;
  for (const auto& userId : voterIds) {
    VoterMfa v{userId, std::nullopt, true, {}};
    for (auto& p : directory.mfaPolicies(userId)) {
      if (!conditionHolds(p.condition, facts())) continue;
      v.enforced = std::move(p);
      break;
    }
    if (v.enforced) {
      std::vector<Method> mine;
      for (const auto& p : presented())
        if (p.userId == userId && std::find(mine.begin(), mine.end(), p.method) == mine.end())
          mine.push_back(p.method);
      const auto& steps = v.enforced->steps;
      v.satisfied =
          std::all_of(steps.begin(), steps.end(), [&](const Step& s) { return stepMet(s, mine); });
      for (const auto& m : mine)
        if (std::any_of(steps.begin(), steps.end(), [&](const Step& s) { return stepMet(s, {m}); }))
          v.satisfiedMethods.push_back(m);
    }
    out.push_back(std::move(v));
  }
  return out;
}

json::Object statusJson(const VoterMfa& voter) {
  json::Object o = json::object();
  o->set("mfaPolicyId", voter.enforced->id);
  o->set("userId", voter.userId);
  o->set("satisfied", voter.satisfied);
  json::Array satisfied = json::array();
  for (const auto& m : voter.satisfiedMethods) satisfied->add(methodJson(m));
  o->set("satisfiedMethods", satisfied);
  o->set("requiredMethods", stepsJson(voter.enforced->steps));
  return o;
}

}  // namespace signet::mfa
