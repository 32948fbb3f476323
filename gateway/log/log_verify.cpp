#include "log/log_verify.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "activity/vote_users.hpp"
#include "log/activity_log.hpp"

namespace signet::log_verify {

namespace {

constexpr int64_t kSlice = 5000;

struct LastLeaf {
  uint64_t index;     // its position in the tree the leaves make
  int64_t stored;     // its row's idx: the same unless a leaf before it was removed
  merkle::Hash hash;  // of the leaf's text
  std::string status;
};

// A leaf as findings name it: by its position in the tree, and by its row's idx too where a
// removed leaf before it makes the two differ.
std::string leafName(uint64_t position, int64_t stored) {
  std::string name = "leaf " + std::to_string(position);
  if (static_cast<int64_t>(position) != stored)
    name += " (stored as idx " + std::to_string(stored) + ")";
  return name;
}

std::string lineOf(const std::string& leaf, const std::string& name) {
  size_t at = leaf.find("\n" + name + " ");
  if (at == std::string::npos) return "";
  at += name.size() + 2;
  return leaf.substr(at, leaf.find('\n', at) - at);
}

// The fields two leaves of one activity differ in, for a finding's sentence.
std::string differences(const std::string& logged, const std::string& stored) {
  std::string out;
  for (const char* field : {"organization", "type", "status", "fingerprint", "result", "votes",
                            "failure", "created", "updated"}) {
    std::string a = lineOf(logged, field), b = lineOf(stored, field);
    if (a != b) out += std::string(out.empty() ? "" : ", ") + field + " " + a + " → " + b;
  }
  return out;
}

// When the leaves no longer hash to a root the log signed: the lowest stored subtree that the
// leaves no longer hash to points at the leaf, unless whoever changed it rewrote those too.
// Then the checkpoints the store kept (each checked against the log's key) narrow it down.
void locate(Db& db, const std::vector<merkle::Hash>& leafHashes, uint64_t size,
            const log_checkpoint::Identity& id, const std::vector<std::string>& activityOf,
            std::vector<Finding>& findings) {
  std::unordered_map<uint64_t, merkle::Hash> stored;
  for (const auto& row : db.query("SELECT idx, hash FROM activity_log_nodes"))
    stored[static_cast<uint64_t>(row.i64("idx"))] = merkle::fromHex(row.str("hash"));
  merkle::Frontier frontier;
  std::vector<std::pair<merkle::Node, merkle::Hash>> made;
  for (uint64_t i = 0; i < size; ++i) {
    made.clear();
    made.push_back({{0, i}, leafHashes[i]});
    frontier.append(leafHashes[i], made);
    for (const auto& [node, hash] : made) {
      auto it = stored.find(merkle::storedIndex(node));
      if (it == stored.end() || it->second == hash) continue;
      uint64_t first = node.index << node.level, last = ((node.index + 1) << node.level) - 1;
      Finding f{first, activityOf[first], ""};
      if (node.level == 0)
        f.description = "leaf " + std::to_string(first) + " (activity " + activityOf[first] +
                        ") is not the leaf the log appended: its hash was " +
                        merkle::toHex(it->second) + ", it is now " + merkle::toHex(hash);
      else
        f.description = "leaves " + std::to_string(first) + " to " + std::to_string(last) +
                        " (activities " + activityOf[first] + " to " + activityOf[last] +
                        ") are not the leaves the log appended, and their stored hashes were "
                        "rewritten to match";
      findings.push_back(f);
      return;
    }
  }
  // Every stored hash was rewritten with the leaves: only signed roots are left to trust.
  std::map<uint64_t, merkle::Hash> signedRoots;
  for (const auto& row : db.query("SELECT note FROM activity_log_checkpoints WHERE size <= ?",
                                  {static_cast<int64_t>(size)})) {
    try {
      auto c = log_checkpoint::open(row.str("note"), id);
      signedRoots[c.size] = c.root;
    } catch (const std::exception&) {
      // not signed by the log: worthless here
    }
  }
  uint64_t after = 0;
  merkle::Frontier again;
  for (uint64_t i = 0; i < size; ++i) {
    made.clear();
    again.append(leafHashes[i], made);
    auto it = signedRoots.find(again.size());
    if (it == signedRoots.end()) continue;
    if (it->second == again.root()) {
      after = again.size();
      continue;
    }
    findings.push_back({after, activityOf[after],
                        "leaves " + std::to_string(after) + " to " + std::to_string(i) +
                            " no longer hash to the root the log signed at size " +
                            std::to_string(again.size()) +
                            ", and every stored hash below it was rewritten to match"});
    return;
  }
  findings.push_back({after, after < activityOf.size() ? activityOf[after] : "",
                      "leaves " + std::to_string(after) + " to " + std::to_string(size - 1) +
                          " no longer hash to the checkpoint's root, and every stored hash below "
                          "it was rewritten to match"});
}

// A voter's copy that votes name (vote_users), and the first activity in the log that names it.
struct NamedCopy {
  uint64_t leafIndex;
  std::string activityId;
};

// Each copy of a voter that a logged vote names is in the store and still the user its digest
// names: a vote's user is read from that copy, so altering it alters what the activity says.
void copyFindings(Db& db, const std::map<std::pair<std::string, std::string>, NamedCopy>& named,
                  std::vector<Finding>& findings) {
  // One read a distinct voter: every row of the copy is checked, since on PostgreSQL two
  // batches may each have stored it (the table's index is not unique), and a read takes either.
  for (const auto& [key, copy] : named) {
    const auto& [organizationId, digest] = key;
    auto rows =
        db.query("SELECT user_json FROM vote_users WHERE organization_id = ? AND digest = ?",
                 {organizationId, digest});
    std::string what;
    if (rows.empty()) what = "removed";
    for (const auto& row : rows)
      if (!vote_users::copyMatches(digest, row.str("user_json"))) what = "altered";
    if (!what.empty())
      findings.push_back({copy.leafIndex, copy.activityId,
                          "activity " + copy.activityId + " names a voter (" + digest +
                              ") whose stored copy was " + what});
  }
}

}  // namespace

Report verify(Db& db, const log_checkpoint::Checkpoint& saved, const log_checkpoint::Identity& id) {
  Report report;
  report.checkpointSize = saved.size;
  std::vector<Finding>& findings = report.findings;

  // What the activities' states say: after the findings about the tree itself, in the order of
  // the leaves concerned.
  std::vector<Finding> stateFindings;
  // The leaves, in order: each index once, none missing.
  std::vector<merkle::Hash> leafHashes;
  std::vector<std::string> activityOf;
  std::unordered_map<std::string, LastLeaf> last;
  merkle::Frontier frontier;
  std::vector<std::pair<merkle::Node, merkle::Hash>> made;
  merkle::Hash rootAtCheckpoint = merkle::emptyRoot();
  // A gap is reported once: after it, every stored index is off by the leaves missing.
  bool gapFound = false;
  for (int64_t from = 0;;) {
    auto rows = db.query(
        "SELECT idx, activity_id, leaf FROM activity_log_leaves WHERE idx >= ? "
        "ORDER BY idx LIMIT ?",
        {from, kSlice});
    for (const auto& row : rows) {
      const int64_t stored = row.i64("idx");
      if (static_cast<uint64_t>(stored) != frontier.size() && !gapFound) {
        gapFound = true;
        findings.push_back({frontier.size(), "",
                            "leaf " + std::to_string(frontier.size()) +
                                " was removed from the log (the next stored leaf is idx " +
                                std::to_string(stored) + ")"});
      }
      const std::string& text = row.str("leaf");
      merkle::Hash hash = merkle::leafHash(text);
      // The activity is the one the hashed text names; the column beside it only indexes it, and
      // proofs find an activity's leaves through it (activity_log::leavesOf).
      std::string named = activity_log::idOf(text);
      // Each misfiled leaf is its own finding, whatever was found before it: an activity's
      // proofs and its last state are read through this column.
      if (named != row.str("activity_id"))
        findings.push_back({frontier.size(), named,
                            leafName(frontier.size(), stored) + " is filed under activity " +
                                row.str("activity_id") + " but its text is of activity " + named});
      leafHashes.push_back(hash);
      activityOf.push_back(named);
      last[named] = LastLeaf{frontier.size(), stored, hash, lineOf(text, "status")};
      made.clear();
      frontier.append(hash, made);
      if (frontier.size() == saved.size) rootAtCheckpoint = frontier.root();
    }
    if (rows.size() < static_cast<size_t>(kSlice)) break;
    from = rows.back().i64("idx") + 1;
  }
  report.treeSize = frontier.size();
  report.treeRoot = frontier.root();

  // The log only grew since the checkpoint: its first leaves still hash to the signed root.
  if (frontier.size() < saved.size)
    findings.push_back({frontier.size(), "",
                        "the log holds " + std::to_string(frontier.size()) +
                            " leaves, fewer than the checkpoint's " + std::to_string(saved.size) +
                            ": leaves were removed"});
  else if (rootAtCheckpoint != saved.root)
    locate(db, leafHashes, saved.size, id, activityOf, findings);

  // The head, which appends and proofs start from, is the tree the leaves make.
  std::string headProblem;
  try {
    auto head = activity_log::head(db);
    if (head.size != frontier.size() || head.root != frontier.root())
      headProblem =
          "says " + std::to_string(head.size) + " leaves and root " + merkle::toHex(head.root);
  } catch (const std::exception& e) {
    headProblem = "cannot be read (" + std::string(e.what()) + ")";
  }
  if (!headProblem.empty())
    findings.push_back({frontier.size(), "",
                        "the log's head " + headProblem + ", where the leaves make " +
                            std::to_string(frontier.size()) + " and root " +
                            merkle::toHex(frontier.root())});

  // Every activity of the store is in the state its last leaf records.
  std::unordered_map<std::string, bool> present;
  // The voters' copies its votes name (vote_users): the leaf holds only their digests.
  std::map<std::pair<std::string, std::string>, NamedCopy> namedCopies;  // (org, digest)
  for (std::string after;;) {
    auto rows = db.query(std::string("SELECT ") + activity_log::kLeafColumns +
                             " FROM activities WHERE id > ? ORDER BY id LIMIT ?",
                         {after, kSlice});
    for (const auto& row : rows) {
      const std::string& aid = row.str("id");
      present[aid] = true;
      std::string leaf = activity_log::leafOf(row);
      auto it = last.find(aid);
      if (it != last.end() && it->second.status == "DELETED") {
        stateFindings.push_back({it->second.index, aid,
                                 "activity " + aid + " is in the store, but " +
                                     leafName(it->second.index, it->second.stored) +
                                     " logged it deleted"});
        continue;
      }
      if (it == last.end()) {
        stateFindings.push_back({frontier.size(), aid,
                                 "activity " + aid + " (" + row.str("status") +
                                     ") is in the store but not in the log"});
        continue;
      }
      std::vector<std::string> digests;
      try {
        digests = vote_users::digestsIn(row.optStr("votes").value_or("[]"));
      } catch (const std::exception&) {
        // votes that no longer parse: the leaf's digest of them tells that they were altered
      }
      for (const auto& digest : digests) {
        auto [named, added] = namedCopies.try_emplace({row.str("organization_id"), digest},
                                                      NamedCopy{it->second.index, aid});
        if (!added && it->second.index < named->second.leafIndex)
          named->second = {it->second.index, aid};
      }
      if (merkle::leafHash(leaf) == it->second.hash) continue;
      // What changed, against the leaf's own text.
      auto logged =
          db.queryOne("SELECT leaf FROM activity_log_leaves WHERE idx = ?", {it->second.stored});
      stateFindings.push_back({it->second.index, aid,
                               "activity " + aid + " was altered after " +
                                   leafName(it->second.index, it->second.stored) + " logged it: " +
                                   differences(logged ? logged->str("leaf") : "", leaf)});
    }
    if (rows.size() < static_cast<size_t>(kSlice)) break;
    after = rows.back().str("id");
  }
  copyFindings(db, namedCopies, stateFindings);
  for (const auto& [aid, leaf] : last)
    if (!present.count(aid) && leaf.status != "DELETED")
      stateFindings.push_back({leaf.index, aid,
                               "activity " + aid + " was removed from the store (" +
                                   leafName(leaf.index, leaf.stored) + " logged it " + leaf.status +
                                   ")"});
  std::sort(stateFindings.begin(), stateFindings.end(),
            [](const Finding& a, const Finding& b) { return a.leafIndex < b.leafIndex; });
  findings.insert(findings.end(), stateFindings.begin(), stateFindings.end());
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.leafIndex < b.leafIndex; });
  return report;
}

}  // namespace signet::log_verify
