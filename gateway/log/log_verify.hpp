// What `signet log verify` checks: that the store's log still grows from a checkpoint the
// auditor kept, and that every activity in the store is in its last logged state. The tree is
// recomputed from the leaves themselves; the store's own subtree hashes and the checkpoints it
// kept serve only to point at what changed. See docs/activity-log.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/checkpoint.hpp"
#include "signet/db.hpp"

namespace signet::log_verify {

struct Finding {
  uint64_t leafIndex = 0;   // where in the log it shows (the first leaf concerned)
  std::string activityId;   // the activity it concerns; empty when it cannot be known
  std::string description;  // what was found, in a sentence
};

struct Report {
  uint64_t checkpointSize = 0;
  uint64_t treeSize = 0;
  merkle::Hash treeRoot{};
  // In log order: the first names the first activity altered, removed or reordered.
  std::vector<Finding> findings;
  bool ok() const { return findings.empty(); }
};

// Checks the store against `saved`, a checkpoint already opened against the log's key. Reads
// the leaves and activities in slices; the subtree hashes only when the roots differ.
Report verify(Db& db, const log_checkpoint::Checkpoint& saved, const log_checkpoint::Identity& id);

}  // namespace signet::log_verify
