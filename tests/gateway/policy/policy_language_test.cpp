// The policy language on its own: every operator, precedence, slicing, list functions, map
// access, integers past 64 bits, Timestamp, and the errors (syntax with position and
// expected token; evaluation errors for absent fields, with no short-circuit).
#include <gtest/gtest.h>

#include "policy/engine.hpp"
#include "policy/evaluator.hpp"
#include "policy/policy_store.hpp"

namespace signet::policy {
namespace {

Fields facts() {
  auto user = [](const std::string& id, std::vector<std::string> tags) {
    List t;
    for (auto& s : tags) t.push_back(Value::string(s));
    return Value::structOf({{"id", Value::string(id)}, {"tags", Value::listOf(t)}});
  };
  Fields message{{"permitted", Value::listOf({Value::mapOf({{"token", Value::string("0xa0b8")},
                                                            {"amount", Value::integer(5)}})})},
                 {"value", Value::string("0")}};
  return {
      {"activity",
       Value::structOf(
           {{"type", Value::string("ACTIVITY_TYPE_DELETE_USERS")},
            {"action", Value::string("DELETE")},
            {"params", Value::structOf({{"user_ids", Value::listOf({Value::string("U1")})}})}})},
      {"approvers", Value::listOf({user("U1", {"SEC", "OPS"}), user("U2", {"OPS"})})},
      {"eth", Value::structOf(
                  {{"tx", Value::structOf(
                              {{"data", Value::string("0xa9059cbb0000")},
                               {"chain_id", Value::integer(11155111)},
                               {"value", Value::integer(Integer(
                                             "100000000000000000000000000000000000000000"))}})},
                   {"eip_712", Value::structOf({{"message", Value::mapOf(message)}})}})},
  };
}

bool eval(const std::string& source) {
  return evaluateCondition(*parse(source), facts());
}

std::string evalError(const std::string& source) {
  try {
    eval(source);
  } catch (const EvaluationError& e) {
    return e.what();
  }
  return "";
}

SyntaxError syntaxError(const std::string& source) {
  try {
    parse(source);
  } catch (const SyntaxError& e) {
    return e;
  }
  ADD_FAILURE() << "no syntax error in: " << source;
  return {};
}

TEST(PolicyLanguage, ComparisonAndLogic) {
  EXPECT_TRUE(eval("1 == 1 && 2 != 3 && 1 < 2 && 2 > 1 && 2 <= 2 && 3 >= 2"));
  EXPECT_FALSE(eval("1 == 2 || 3 < 2"));
  EXPECT_TRUE(eval("!false && !(1 == 2)"));
  EXPECT_TRUE(eval("'a' == 'a' && 'a' != 'b'"));
  EXPECT_TRUE(eval("true || false && false"));  // && binds tighter than ||
  EXPECT_FALSE(eval("(true || false) && false"));
  // ! binds tighter than ==: `!1 == 1` negates the int 1 (an error) rather than the comparison.
  EXPECT_NE(evalError("!1 == 1").find("! needs a bool"), std::string::npos);
}

TEST(PolicyLanguage, NumbersPastSixtyFourBitsAndNumericStrings) {
  EXPECT_TRUE(eval("eth.tx.value > 99999999999999999999999999999999999999999"));
  EXPECT_TRUE(
      eval("115792089237316195423570985008687907853269984665640564039457584007913129639935 > 0"));
  EXPECT_TRUE(eval("eth.tx.chain_id == 11155111 && eth.tx.chain_id == '11155111'"));
  EXPECT_NE(
      syntaxError(
          "115792089237316195423570985008687907853269984665640564039457584007913129639936 > 0")
          .message()
          .find("below 2^256"),
      std::string::npos);
  EXPECT_NE(evalError("'abc' < 'abd'").find("compares numbers or timestamps"), std::string::npos);
  EXPECT_NE(evalError("1 == 'one'").find("cannot compare"), std::string::npos);
}

// Found by the fuzz target: a leading zero read as octal, and a literal past 100 digits.
TEST(PolicyLanguage, FuzzFindingsStayFixed) {
  EXPECT_TRUE(eval("09 == 9 && 007 == '7' && '08' == 8"));
  EXPECT_NE(syntaxError(std::string(130, '2') + " > 1").message().find("below 2^256"),
            std::string::npos);
}

TEST(PolicyLanguage, IndexingSlicingAndMaps) {
  EXPECT_TRUE(eval("eth.tx.data[0..10] == '0xa9059cbb'"));
  EXPECT_TRUE(eval("eth.tx.data[0] == '0' && eth.tx.data[2..2] == ''"));
  EXPECT_TRUE(eval("activity.params.user_ids[0] == 'U1'"));
  EXPECT_TRUE(eval("eth.eip_712.message['permitted'][0]['token'] == '0xa0b8'"));
  EXPECT_TRUE(eval("eth.eip_712.message['value'] == '0'"));
  EXPECT_NE(evalError("activity.params.user_ids[1] == 'U2'").find("out of range"),
            std::string::npos);
  EXPECT_NE(evalError("eth.tx.data[5..3] == ''").find("after its end"), std::string::npos);
  EXPECT_NE(evalError("eth.eip_712.message['nope'] == 1").find("missing field"), std::string::npos);
}

TEST(PolicyLanguage, ListFunctions) {
  EXPECT_TRUE(eval("approvers.any(user, user.id == 'U1')"));
  EXPECT_FALSE(eval("approvers.all(u, u.tags.contains('SEC'))"));
  EXPECT_TRUE(eval("approvers.filter(user, user.tags.contains('OPS')).count() >= 2"));
  // filter().count() counts without building the list, but reads every item all the same.
  EXPECT_TRUE(eval("approvers.filter(user, user.id == 'U1').count() == 1"));
  EXPECT_TRUE(eval(
      "approvers.filter(user, user.tags.contains('OPS')).filter(u, u.id == 'U2').count() == 1"));
  EXPECT_NE(
      evalError("approvers.filter(u, u.email == 'x').count() == 0").find("missing field: .email"),
      std::string::npos);
  EXPECT_TRUE(eval("approvers.count == 2 && approvers.count() == 2"));
  EXPECT_TRUE(eval("'U1' in activity.params.user_ids && !('U9' in activity.params.user_ids)"));
  EXPECT_TRUE(eval("eth.eip_712.message['permitted'].all(p, p['amount'] < 100000000)"));
  EXPECT_TRUE(eval("[].all(x, x == 1) && ![].any(x, x == 1)"));  // vacuous truth
  EXPECT_TRUE(eval("activity.action in ['CREATE', 'DELETE']"));
  EXPECT_TRUE(eval("{ id: 'abc' }.id == 'abc'"));
}

// Lambda variables resolve to their innermost binding, also where names shadow each other
// or a root keyword.
TEST(PolicyLanguage, LambdaVariablesBindInnermost) {
  EXPECT_TRUE(eval("approvers.any(x, x.tags.any(x, x == 'SEC'))"));
  EXPECT_TRUE(eval("approvers.any(a, approvers.any(b, b.id != a.id))"));
  EXPECT_FALSE(eval("approvers.all(a, approvers.all(b, b.id == a.id))"));
  EXPECT_TRUE(eval("approvers.any(activity, activity.id == 'U2') && activity.action == 'DELETE'"));
}

// One Memo across several expressions over the same facts (as for a policy set) gives the
// same values as evaluating each alone: a shared piece is computed once, a piece that reads
// a lambda variable never is, and errors keep their own expression's position.
TEST(PolicyLanguage, MemoAcrossExpressionsKeepsEachResult) {
  const Fields f = facts();
  const std::vector<std::string> sources = {
      "approvers.filter(u, u.tags.contains('OPS')).count() >= 2 && activity.action == 'DELETE'",
      "approvers.filter(u, u.tags.contains('OPS')).count() >= 2 && activity.action == 'CREATE'",
      "approvers.any(u, u.id == 'U1') && approvers.any(u, u.tags.contains('SEC'))",
      "approvers.all(u, u.id == 'U1') || approvers.any(u, u.tags.contains('SEC'))",
      "approvers.any(u, approvers.count() >= 2 && u.id == 'U2')",
      "activity.params.user_ids.any(u, u == 'U1')",
      "approvers.any(u, u.id == 'U1')",
  };
  std::vector<NodePtr> parsedSources;
  for (const auto& s : sources) parsedSources.push_back(parse(s));
  Memo memo;
  for (int pass = 0; pass < 2; ++pass)  // the second pass reads the memo
    for (size_t i = 0; i < sources.size(); ++i)
      EXPECT_EQ(evaluateCondition(*parsedSources[i], f, &memo), eval(sources[i])) << sources[i];
  EXPECT_FALSE(memo.values.empty());

  // A lambda variable named like a root keyword reads the same text as the root path
  // (`activity.action` here), so the two share a shape: only the closed one may be
  // remembered, or the lambda would read the root's value (and the root the lambda's).
  const std::vector<std::string> shadowed = {
      "activity.action == 'DELETE'",
      "approvers.any(activity, activity.id == 'U2') && activity.action == 'DELETE'",
      "approvers.all(activity, activity.tags.contains('OPS')) && activity.action == 'DELETE'",
      "activity.type == 'ACTIVITY_TYPE_DELETE_USERS'",
  };
  Memo pathMemo;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& s : shadowed) EXPECT_TRUE(evaluateCondition(*parse(s), f, &pathMemo)) << s;
  EXPECT_THROW(evaluateCondition(*parse("approvers.any(activity, activity.action == 'DELETE')"), f,
                                 &pathMemo),
               EvaluationError);  // approvers have no action, whatever the root's is

  // The same erroring piece at different positions: each error names its own position.
  auto first = parse("wallet.id == 'W' || approvers.count() == 2");
  auto second = parse("approvers.count() == 2 && (wallet.id == 'W')");
  auto errorOf = [&](const Node& n) {
    try {
      evaluateCondition(n, f, &memo);
    } catch (const EvaluationError& e) {
      return e.position();
    }
    return size_t{999};
  };
  EXPECT_EQ(errorOf(*first), 0u);
  EXPECT_EQ(errorOf(*second), 27u);
  EXPECT_EQ(errorOf(*first), 0u);
}

// A policy set where clauses repeat word for word: each policy still gets its own outcome,
// an erroring clause errors for every policy that has it, and a DENY among them still wins.
TEST(PolicyLanguage, RepeatedClausesEachGiveTheirPolicysOutcome) {
  auto policy = [](const std::string& id, const std::string& effect, const std::string& condition,
                   const std::string& consensus) {
    PolicyRecord p;
    p.id = p.name = id;
    p.effect = effect;
    p.condition = condition;
    p.consensus = consensus;
    return p;
  };
  const std::string deleting = "activity.action == 'DELETE'";
  const std::string twoOps = "approvers.filter(u, u.tags.contains('OPS')).count() >= 2";
  const std::string broken = "wallet.id == 'W1'";
  std::vector<PolicyRecord> set = {
      policy("a", "EFFECT_ALLOW", deleting, twoOps),
      policy("b", "EFFECT_ALLOW", broken, ""),
      policy("c", "EFFECT_ALLOW", deleting, "approvers.count() >= 3"),
      policy("d", "EFFECT_DENY", broken, twoOps),
      policy("e", "EFFECT_ALLOW", "activity.action == 'CREATE'", twoOps),
      policy("f", "EFFECT_ALLOW", deleting, twoOps),
  };
  Fields f = facts();
  Fields consensus{{"approvers", f.at("approvers")}};
  PolicySet compiled = compilePolicies(set);  // the verdicts point into it
  PolicyVerdicts v = evaluatePolicies(compiled, f, consensus, timeFacts(0));
  std::vector<std::pair<std::string, std::string>> outcomes;
  for (const auto& [id, outcome] : v.outcomes) outcomes.emplace_back(std::string(id), outcome);
  EXPECT_EQ(outcomes, (std::vector<std::pair<std::string, std::string>>{
                          {"a", "OUTCOME_ALLOW"},
                          {"b", "OUTCOME_ERROR"},
                          {"c", "OUTCOME_REQUIRES_CONSENSUS"},
                          {"d", "OUTCOME_ERROR"},
                          {"f", "OUTCOME_ALLOW"},
                      }));
  EXPECT_EQ(v.allows, (std::vector<std::string_view>{"a", "f"}));
  ASSERT_EQ(v.denials.size(), 1u);  // the erroring DENY fails closed
  EXPECT_NE(v.denials[0].find("missing field: wallet"), std::string::npos) << v.denials[0];
  ASSERT_EQ(v.errors.size(), 1u);
  EXPECT_NE(v.errors[0].find("policy 'b'"), std::string::npos) << v.errors[0];
}

TEST(PolicyLanguage, AbsentFieldsAreErrorsAndNothingShortCircuits) {
  EXPECT_NE(evalError("wallet.id == 'W1'").find("missing field: wallet"), std::string::npos);
  // The right side is evaluated even when the left decides: the documented
  // `wallet.id == 'W' || private_key.id == 'K'` always errors.
  EXPECT_NE(evalError("true || wallet.id == 'W'").find("missing field"), std::string::npos);
  EXPECT_NE(evalError("false && activity.nothing == 1").find("missing field: .nothing"),
            std::string::npos);
  EXPECT_NE(evalError("approvers.any(u, u.email == 'x')").find("missing field: .email"),
            std::string::npos);
  EXPECT_NE(evalError("1").find("not a bool"), std::string::npos);
  EXPECT_NE(evalError("activity.type.count() == 1").find("needs a list"), std::string::npos);
}

TEST(PolicyLanguage, Timestamps) {
  EXPECT_TRUE(eval("Timestamp('2026-03-01T00:00:00Z') < Timestamp('2026-04-01T00:00:00+00:00')"));
  EXPECT_TRUE(eval("Timestamp('2026-03-01T00:00:00.500z') > Timestamp('2026-03-01T00:00:00Z')"));
  EXPECT_NE(evalError("Timestamp('2026-03-01T00:00:00+02:00') > Timestamp('2026-03-01T00:00:00Z')")
                .find("offset zero"),
            std::string::npos);
  EXPECT_EQ(*parseTimestamp("1970-01-01T00:00:01Z"), 1000);
}

TEST(PolicyLanguage, SyntaxErrorsNamePositionAndExpectation) {
  auto e = syntaxError("activity.type == ");
  EXPECT_EQ(e.position, 17u);
  EXPECT_NE(e.message().find("expected a value"), std::string::npos) << e.message();
  e = syntaxError("activity.type = 'x'");
  EXPECT_EQ(e.position, 14u);
  e = syntaxError("(activity.type == 'x'");
  EXPECT_NE(e.message().find("expected ')'"), std::string::npos) << e.message();
  e = syntaxError("activity.type == \"x\"");
  EXPECT_EQ(e.position, 17u);
  e = syntaxError("'unterminated");
  EXPECT_NE(e.message().find("closing quote"), std::string::npos);
  e = syntaxError("approvers.any(1, true)");
  EXPECT_NE(e.message().find("variable name"), std::string::npos);
  e = syntaxError("a b");
  EXPECT_NE(e.message().find("end of the expression"), std::string::npos);
  e = syntaxError("x[1 2]");
  EXPECT_NE(e.message().find("expected ']'"), std::string::npos);
  EXPECT_NE(
      syntaxError(std::string(200, '(') + "true" + std::string(200, ')')).message().find("nested"),
      std::string::npos);
  EXPECT_NE(syntaxError(std::string(300, '!') + "true").message().find("nested"),
            std::string::npos);
}

TEST(PolicyLanguage, FreeIdentifiersExcludeLambdaVariables) {
  auto ids =
      freeIdentifiers(*parse("approvers.any(user, user.id == 'U1') && credentials.count() > 0"));
  EXPECT_EQ(ids, (std::set<std::string>{"approvers", "credentials"}));
}

}  // namespace
}  // namespace signet::policy
