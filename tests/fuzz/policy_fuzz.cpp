// Fuzz target: any bytes as a policy expression. Parsing may refuse them (SyntaxError) and
// evaluation may fail (EvaluationError, or signet::Error from a fact conversion); anything
// else, or a crash, hang or sanitizer report, is a bug. Evaluating through a Memo (as a
// policy set does) must give exactly what evaluating alone gives, value or error.
#include <cstdint>
#include <string>

#include "policy/evaluator.hpp"
#include "signet/error.hpp"

using namespace signet::policy;

static const Fields& facts() {
  static const Fields f = [] {
    List tags{Value::string("T1"), Value::string("T2")};
    Value user = Value::structOf({{"id", Value::string("U1")}, {"tags", Value::listOf(tags)}});
    Fields message{{"value", Value::string("0")},
                   {"items", Value::listOf({Value::integer(1), Value::integer(2)})}};
    return Fields{
        {"activity",
         Value::structOf(
             {{"type", Value::string("ACTIVITY_TYPE_CREATE_USERS_V4")},
              {"params", Value::structOf({{"user_ids", Value::listOf({Value::string("U1")})}})}})},
        {"approvers", Value::listOf({user, user})},
        {"eth",
         Value::structOf(
             {{"tx", Value::structOf({{"data", Value::string("0xa9059cbb00")},
                                      {"value", Value::integer(Integer(
                                                    "340282366920938463463374607431768211456"))}})},
              {"eip_712", Value::structOf({{"message", Value::mapOf(message)}})}})},
    };
  }();
  return f;
}

// The value, or the error with its position, as text.
static std::string outcome(const Node& ast, Memo* memo) {
  try {
    Value v = evaluate(ast, facts(), memo);
    return std::string(kindName(v.kind)) + " " + describe(v);
  } catch (const EvaluationError& e) {
    return std::string("error ") + e.what();
  } catch (const signet::Error& e) {
    return std::string("error ") + e.what();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  NodePtr ast;
  try {
    ast = parse(source);
  } catch (const SyntaxError&) {
    return 0;
  }
  (void)freeIdentifiers(*ast);
  NodePtr again = parse(source);  // a second expression with the same pieces: all shared now
  std::string alone = outcome(*ast, nullptr);
  Memo memo;
  if (outcome(*ast, &memo) != alone || outcome(*again, &memo) != alone) __builtin_trap();
  return 0;
}
