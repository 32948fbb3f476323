// Evaluates a parsed expression over the facts of one activity. && and || evaluate both
// sides (the language does not short-circuit), reading an absent field is an error (not
// false), and any error makes the policy's outcome OUTCOME_ERROR.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <unordered_map>

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

// The values of memoizable subexpressions (shape.hpp) already computed over one set of facts.
// Pass the same Memo to every expression evaluated over the same facts (one policy set, one
// activity) and a fresh one for other facts. Errors are not remembered: an erroring piece is
// evaluated again where it appears, so each policy's error names its own position.
struct Memo {
  std::unordered_map<uint32_t, Value> values;

  // Closed paths (Node::closedPath) resolved to where their value lives in the facts: the
  // policies of a set read the same few (activity.resource, activity.action) over and over,
  // and walking them field by field was the largest single cost. Open addressing on the
  // shape id; a full neighbourhood just means the path is walked again.
  const Value* path(uint32_t shape) const {
    for (size_t i = 0, at = slotOf(shape); i < kProbes; ++i, at = (at + 1) % kPathSlots)
      if (paths_[at].first == shape) return paths_[at].second;
    return nullptr;
  }
  void rememberPath(uint32_t shape, const Value* value) {
    for (size_t i = 0, at = slotOf(shape); i < kProbes; ++i, at = (at + 1) % kPathSlots)
      if (paths_[at].first == 0) {
        paths_[at] = {shape, value};
        return;
      }
  }

 private:
  static constexpr size_t kPathSlots = 256, kProbes = 8;
  static size_t slotOf(uint32_t shape) { return (shape * 2654435761u) >> 24; }
  std::array<std::pair<uint32_t, const Value*>, kPathSlots> paths_{};  // shape 0: empty
};

Value evaluate(const Node& node, const Fields& roots, Memo* memo = nullptr);
// Evaluates and requires a bool.
bool evaluateCondition(const Node& node, const Fields& roots, Memo* memo = nullptr);

// The time keyword, which only a policy's time expression reads: time.now, a timestamp.
Fields timeFacts(int64_t nowMs);

// Timestamp('2026-03-01T00:00:00Z'): RFC 3339 at zero offset only, to epoch milliseconds.
std::optional<int64_t> parseTimestamp(const std::string& text);

}  // namespace signet::policy
