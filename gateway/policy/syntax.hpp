// The policy language's syntax: a lexer and a recursive-descent parser producing an AST.
// Precedence, tightest first: postfix (.f, [i], [a..b], .method(...)), then !, then
// comparisons and `in`, then &&, then ||. Strings use single quotes. A syntax error names the
// position (0-based byte offset) and what was expected there.
#pragma once

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "policy/value.hpp"

namespace signet::policy {

struct Node {
  enum class Kind : uint8_t {
    kLiteral,  // value
    kIdent,    // name
    kList,     // children
    kStruct,   // fieldNames + children
    kNot,      // children[0]
    kBinary,   // name = operator, children[0..1]
    kMember,   // children[0] . name
    kIndex,    // children[0] [ children[1] ]
    kSlice,    // children[0] [ children[1] .. children[2] ]
    kMethod,   // children[0] . name ( lambdaVar, children[1] ) or ( children[1..] )
    kCall,     // name ( children... ): Timestamp
  };
  // The list function a kMethod calls, or kCount for a kMember `.count`; set by the parser
  // so that evaluation dispatches without comparing names.
  enum class Function : uint8_t { kNone, kAll, kAny, kContains, kFilter, kCount };
  // The fields evaluation reads on every visit come first, within one cache line: a set of
  // 100 policies is thousands of nodes, and evaluating it was bound by the misses of reading
  // `kind` and `memoizable` from opposite ends of a 250-byte node.
  Kind kind = Kind::kLiteral;
  Function function = Function::kNone;
  // Set by assignShapes (shape.hpp) when parsing ends: equal shapes are equal text, and a
  // memoizable node computes the same value wherever it appears in one evaluation.
  bool memoizable = false;
  // A member or index chain that reads no lambda variable (activity.resource, eth.tx.to): it
  // resolves to the same fact wherever it appears in one evaluation (Memo::paths).
  bool closedPath = false;
  uint32_t shape = 0;
  // For a kIdent naming a lambda variable: its binding's index in the evaluator's scope
  // stack (0 = the outermost enclosing lambda); -1 for a root keyword.
  int slot = -1;
  std::vector<std::shared_ptr<const Node>> children;
  std::string name;
  Value value;
  size_t position = 0;
  std::string lambdaVar;
  std::vector<std::string> fieldNames;
};
using NodePtr = std::shared_ptr<const Node>;

// A std::exception like every other error, so that code evaluating a stored expression that
// no longer parses handles it as it handles an evaluation error, with no special case.
struct SyntaxError : std::runtime_error {
  SyntaxError() : SyntaxError(0, "", "") {}
  SyntaxError(size_t position, std::string expected, std::string found);
  size_t position;
  std::string expected;
  std::string found;
  std::string message() const { return what(); }
};

// Throws SyntaxError.
NodePtr parse(std::string_view source);

// The root identifiers an expression reads (lambda variables excluded).
std::set<std::string> freeIdentifiers(const Node& node);

}  // namespace signet::policy
