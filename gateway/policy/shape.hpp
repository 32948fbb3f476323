// Structural ids for subexpressions. Two nodes with the same shape id are the same text up to
// whitespace and parentheses, so a node that reads no lambda variable from outside itself
// ("closed") has the same value wherever it appears, within one evaluation. Policy sets
// repeat such pieces (`activity.resource == 'WALLET'`, `approvers.any(...)`): the evaluator
// computes each once per activity instead of once per policy.
#pragma once

#include "policy/syntax.hpp"

namespace signet::policy {

// Assigns Node::shape, Node::memoizable and Node::slot over a freshly parsed tree (before it is
// shared), and counts the tree's shapes as used by one more expression. Ids come from a
// process-wide table that never reuses an id; past its bound, new shapes get no id and are not
// memoized.
void assignShapes(Node& root);

// Whether more than one parsed expression contains this shape. Only those are worth a memo
// entry: remembering a piece no other policy repeats costs more than it saves.
bool isSharedShape(uint32_t shape);

}  // namespace signet::policy
