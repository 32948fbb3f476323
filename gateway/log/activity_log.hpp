// The activity log: every state an activity is committed in, appended as a leaf of an
// append-only Merkle tree (merkle.hpp) in the same transaction, in commit order. See
// docs/activity-log.md.
//
// How a change becomes a leaf: triggers on `activities` note every inserted or updated row (in
// activity_log_pending on PostgreSQL; on SQLite in the connection's temporary schema, which the
// WAL does not carry), with its leaf made by the store from the row as written (leafSql), or on
// SQLite the leaf its write gave (givenLeaf), inside the writer's own savepoint, so a write that
// rolls back takes its note with it and no write path can forget one. Before each COMMIT the
// group commit runs startAppend and the append it returns, which turn this transaction's notes
// into leaves. On PostgreSQL the head row is locked for that, so that the batches of several
// gateways on one store append one after the other: one total order for the store.
//
// Only the gateway's own write connections note changes (writerSetup). A row changed by anyone
// else, with the database's own tools, is not noted, so no gateway appends it as if it had made
// it: `signet log verify` finds it differing from its last leaf.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "log/merkle.hpp"
#include "signet/db.hpp"

namespace signet::activity_log {

// Whether SIGNET_BENCH_WITHOUT_ACTIVITY_LOG=1 switched the log off: for tests/bench/log_cost.sh
// alone (Gateway::startActivityLog).
bool switchedOff();

// The columns of `activities` a leaf is made of, for a SELECT.
extern const char* const kLeafColumns;
// Those columns' values, as a row holds them or a write binds them; a null text is NULL.
struct LeafFields {
  const std::string& id;
  const std::string& organizationId;
  const std::string& type;
  const std::string& status;
  const std::string& fingerprint;
  const std::string* intent;
  const std::string* result;
  const std::string* votes;
  const std::string* failure;
  int64_t createdAtMs;
  int64_t updatedAtMs;
};
// The canonical text of an activity's state: one "name value" line per field, in a fixed
// order. Bulky fields (intent, result, votes, failure) enter as their SHA-256, so that a leaf stays
// small and a sealed result stays sealed.
std::string leafOf(const LeafFields& activity);
std::string leafOf(const Row& activity);
// What a write gives the SQLite trigger that notes its new row (store/given_texts.hpp): `leaf`,
// made by leafOf from the texts the write binds, and its hash, made where the write's texts
// were (the request's thread), so that the trigger, on the committing thread, takes them
// instead of hashing the row's texts and the leaf again. Given for `activityId` alone: any other
// row's trigger makes its own. PostgreSQL's trigger, in the server, always makes its own.
std::vector<std::pair<std::string, std::string>> givenLeaf(const std::string& activityId,
                                                           const std::string& leaf);
// The leaf of a deleted activity (its organization was deleted): its id and status DELETED.
std::string tombstoneOf(const std::string& activityId);
// The same two texts as SQL expressions, for the store to make: `row` is a row of `activities`
// ("NEW" or "OLD" in a trigger, an alias in a query), and `postgres` picks the store's SHA-256
// (on SQLite, the sha256_hex the store defines on each connection). The triggers note each
// change with its leaf, so that the append need not read the activity back; leafOf stays what
// `signet log verify` recomputes, and ActivityLogTest.TheStoreMakesTheLeavesLeafOfMakes pins
// that they agree.
std::string leafSql(bool postgres, const std::string& row);
std::string tombstoneSql(const std::string& row);
// The activity a leaf's text names (its hashed `id` line); empty when it names none.
std::string idOf(const std::string& leaf);

// Run once on each of the gateway's write connections: SQLite gets the noting triggers as TEMP
// triggers of that connection; a PostgreSQL session says it is the gateway's, which the
// migration's trigger asks.
void writerSetup(Db& db);

// Appends this transaction's pending changes as leaves, in two parts (GroupCommit's
// before-commit step). On PostgreSQL the start, once the batch's writes are sent, sends the
// head's lock and the notes' DELETE without waiting, to go in the round trip the writes' steps
// make, and the part it returns appends the notes once those steps ran; a note made after the
// start (a step that changed an activity, which none may) fails the batch at its COMMIT rather
// than be appended by the next batch as a state this one never committed. On SQLite, whose one
// writer is the lock, the start does nothing and the part it returns takes the notes and
// appends them, after the steps. `nowMs` is recorded with the leaves.
std::function<void(Db&)> startAppend(Db& db, int64_t nowMs);
// Both parts at once (a starting gateway's append, tests).
void appendPending(Db& db, int64_t nowMs);

struct Head {
  uint64_t size = 0;
  merkle::Hash root = merkle::emptyRoot();
};
Head head(Db& db);

// The stored hashes of `nodes` (one query, whatever their number), as a reader; it throws
// when asked for a node it was not given or the store does not hold.
merkle::NodeReader storedNodes(Db& db, const std::vector<merkle::Node>& nodes);
// The root of the tree's first `size` leaves, and the proofs, each from O(log n) stored hashes.
merkle::Hash rootAt(Db& db, uint64_t size);
std::vector<merkle::Hash> inclusionProof(Db& db, uint64_t index, uint64_t size);
std::vector<merkle::Hash> consistencyProof(Db& db, uint64_t first, uint64_t second);

struct Leaf {
  uint64_t index = 0;
  std::string activityId;
  std::string text;
};
// An activity's leaves among the first `size`, oldest first.
std::vector<Leaf> leavesOf(Db& db, const std::string& activityId, uint64_t size);

}  // namespace signet::activity_log
