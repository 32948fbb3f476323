// Evaluates a parsed expression over the facts of one activity. && and || evaluate both
// sides (the language does not short-circuit), reading an absent field is an error (not
// false), and any error makes the policy's outcome OUTCOME_ERROR.
#pragma once

#include <stdexcept>
#include <string>

#include "policy/syntax.hpp"

namespace signet::policy {

class EvaluationError : public std::runtime_error {
 public:
  EvaluationError(size_t position, const std::string& message)
      : std::runtime_error("at position " + std::to_string(position) + ": " + message),
        position_(position) {}
  size_t position() const { return position_; }

 private:
  size_t position_;
};

Value evaluate(const Node& node, const Fields& roots);
// Evaluates and requires a bool.
bool evaluateCondition(const Node& node, const Fields& roots);

// Timestamp('2026-03-01T00:00:00Z'): RFC 3339 at zero offset only, to epoch milliseconds.
std::optional<int64_t> parseTimestamp(const std::string& text);

}  // namespace signet::policy
