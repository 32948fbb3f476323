// How long evaluating a 100-policy set against one activity takes, beside the cost of one
// P-256 stamp verification measured in the same run (the target: well under one verify).
// Prints its figures; asserts nothing.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include "policy/engine.hpp"
#include "policy/evaluator.hpp"
#include "policy/policy_store.hpp"
#include "signet/stamp.hpp"

using namespace signet;
using Clock = std::chrono::steady_clock;

template <class F>
double medianMicros(int rounds, int perRound, F&& f) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < perRound; ++i) f();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      perRound);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::stoi(argv[1]) : 15;

  // One P-256 X-Stamp verification over a typical body.
  std::string body =
      R"({"type":"ACTIVITY_TYPE_CREATE_USERS_V4","timestampMs":"1763780000000","organizationId":"53abd8f2-8948-4d21-bee4-61b10b32bdb6","parameters":{"users":[{"userName":"bench"}]}})";
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto stamp = stamp::sign(stamp::Scheme::kP256, priv, body);
  Bytes pub = *fromHex(stamp.publicKey), sig = *fromHex(stamp.signature);
  double verify = medianMicros(rounds, 400, [&] {
    if (!stamp::verify(stamp::Scheme::kP256, pub, sig, body)) std::abort();
  });

  // 100 policies of the shapes the docs use: conditions on the activity, consensus on
  // approvers and tags, a few DENYs; none matches everything, so every one is evaluated.
  // "shared": the pieces repeat across policies as they do in real sets (the same resource
  // test, the same approver check); "distinct": every piece of every policy differs, so the
  // engine's per-activity memo of shared pieces cannot help (the worst case).
  auto policySet = [](bool distinct) {
    std::vector<policy::PolicyRecord> policies;
    for (int i = 0; i < 100; ++i) {
      std::string n = std::to_string(i);
      policy::PolicyRecord p;
      p.id = "policy-" + n;
      p.name = p.id;
      p.effect = i % 10 == 0 ? "EFFECT_DENY" : "EFFECT_ALLOW";
      p.condition = distinct
                        ? "activity.resource in ['USER', 'R" + n +
                              "'] && (activity.action == 'CREATE' || activity.action == 'A" + n +
                              "') && activity.params.users.count() <= " + std::to_string(i + 1) +
                              " && activity.type != 'X" + n + "'"
                        : "activity.resource == 'USER' && activity.action in ['CREATE', "
                          "'UPDATE'] && activity.params.users.count() <= " +
                              std::to_string(i % 5 + 1) + " && activity.type != 'ACTIVITY_TYPE_X" +
                              n + "'";
      p.consensus = "approvers.filter(user, user.tags.contains('tag-" +
                    (distinct ? n : std::to_string(i % 7)) +
                    "')).count() >= 1 && approvers.any(user, user.id != 'nobody" +
                    (distinct ? n : "") + "')";
      policies.push_back(p);
    }
    return policies;
  };
  using policy::Value;
  policy::Fields condition{
      {"activity",
       Value::structOf(
           {{"type", Value::string("ACTIVITY_TYPE_CREATE_USERS_V4")},
            {"kind", Value::string("CREATE_USERS")},
            {"resource", Value::string("USER")},
            {"action", Value::string("CREATE")},
            {"params", Value::structOf({{"users", Value::listOf({Value::structOf({})})}})}})}};
  policy::List approvers;
  for (int u = 0; u < 3; ++u)
    approvers.push_back(
        Value::structOf({{"id", Value::string("user-" + std::to_string(u))},
                         {"tags", Value::listOf({Value::string("tag-" + std::to_string(u))})}}));
  policy::Fields consensus{{"approvers", Value::listOf(approvers)},
                           {"credentials", Value::listOf({})}};
  policy::Fields time = policy::timeFacts(1763780000000);
  size_t outcomes = 0;
  auto timeSet = [&](const std::vector<policy::PolicyRecord>& records) {
    policy::PolicySet policies = policy::compilePolicies(records);
    return medianMicros(rounds, 40, [&] {
      outcomes = policy::evaluatePolicies(policies, condition, consensus, time).outcomes.size();
    });
  };
  double shared = timeSet(policySet(false));
  size_t sharedOutcomes = outcomes;
  double distinct = timeSet(policySet(true));

  std::cout << "policy evaluation benchmark (median of " << rounds << " rounds)\n"
            << "  P-256 stamp verification:          " << verify << " us\n"
            << "  100 policies, shared pieces:       " << shared << " us  (" << sharedOutcomes
            << " outcomes recorded; " << shared / verify << " of a verification)\n"
            << "  100 policies, all pieces distinct: " << distinct << " us  (" << outcomes
            << " outcomes recorded; " << distinct / verify << " of a verification)\n"
            << "  (policies compiled once, as the engine's PolicySetCache keeps them until the\n"
            << "   organization's policy version changes; reading that version is one indexed\n"
            << "   query per activity and not included)\n";
  return 0;
}
