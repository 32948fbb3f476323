#include "log/activity_log.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "store/sql_connection.hpp"
#include "store/sql_text.hpp"

namespace signet::activity_log {

const char* const kLeafColumns =
    "id, organization_id, type, status, fingerprint, intent, result, votes, failure, "
    "created_at_ms, updated_at_ms";

bool switchedOff() {
  static const bool off = [] {
    const char* value = std::getenv("SIGNET_BENCH_WITHOUT_ACTIVITY_LOG");
    return value && std::string(value) == "1";
  }();
  return off;
}

namespace {

std::string digestOf(const std::string* text) {
  if (!text) return "-";
  return "sha256:" + crypto::toHex(crypto::sha256(*text));
}

const std::string* textOf(const Row& row, const char* column) {
  return row.isNull(column) ? nullptr : &row.str(column);
}

// The names givenLeaf gives under, which the SQLite trigger asks for (writerSetup).
const char* const kGivenLeaf = "activity log leaf of ";
const char* const kGivenLeafHash = "activity log leaf hash of ";

std::string joinHashes(const std::vector<merkle::Hash>& hashes) {
  std::string out;
  for (const auto& h : hashes) out += (out.empty() ? "" : ",") + merkle::toHex(h);
  return out;
}

merkle::Frontier frontierOf(const Row& head) {
  std::vector<merkle::Hash> subtrees;
  const std::string& text = head.str("frontier");
  for (size_t at = 0; at < text.size();) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    subtrees.push_back(merkle::fromHex(text.substr(at, comma - at)));
    at = comma + 1;
  }
  return merkle::Frontier(static_cast<uint64_t>(head.i64("size")), std::move(subtrees));
}

}  // namespace

std::string tombstoneOf(const std::string& activityId) {
  return "signet activity v1\nid " + activityId + "\nstatus DELETED\n";
}

std::string idOf(const std::string& leaf) {
  const std::string prefix = "signet activity v1\nid ";
  if (leaf.rfind(prefix, 0) != 0) return "";
  return leaf.substr(prefix.size(), leaf.find('\n', prefix.size()) - prefix.size());
}

std::string leafOf(const Row& a) {
  return leafOf(LeafFields{a.str("id"), a.str("organization_id"), a.str("type"), a.str("status"),
                           a.str("fingerprint"), textOf(a, "intent"), textOf(a, "result"),
                           textOf(a, "votes"), textOf(a, "failure"), a.i64("created_at_ms"),
                           a.i64("updated_at_ms")});
}

std::vector<std::pair<std::string, std::string>> givenLeaf(const std::string& activityId,
                                                           const std::string& leaf) {
  return {{kGivenLeaf + activityId, leaf},
          {kGivenLeafHash + activityId, merkle::toHex(merkle::leafHash(leaf))}};
}

std::string leafOf(const LeafFields& a) {
  std::string out = "signet activity v1\n";
  auto line = [&](const char* name, const std::string& value) {
    out += name;
    out += ' ';
    out += value;
    out += '\n';
  };
  line("id", a.id);
  line("organization", a.organizationId);
  line("type", a.type);
  line("status", a.status);
  line("fingerprint", a.fingerprint);
  line("intent", digestOf(a.intent));
  line("result", digestOf(a.result));
  line("votes", digestOf(a.votes));
  line("failure", digestOf(a.failure));
  line("created", std::to_string(a.createdAtMs));
  line("updated", std::to_string(a.updatedAtMs));
  return out;
}

// Line for line what leafOf and tombstoneOf write. A string literal may hold a newline in SQL,
// on both stores. Core migrations 26 and 27 wrote this text into PostgreSQL's trigger function:
// a store upgraded since keeps it, so a change here is a new leaf format and needs a migration of
// its own (and leafOf's change, which ActivityLogTest.TheStoreMakesTheLeavesLeafOfMakes asks for).
// ActivityLogTest.TheLeafFormatIsVersionOneAsFrozen holds version 1, written out by hand.
std::string leafSql(bool postgres, const std::string& row) {
  auto column = [&](const char* name) { return row + "." + name; };
  auto digest = [&](const char* name) {
    const std::string c = column(name);
    const std::string hex =
        postgres ? "encode(sha256(convert_to(" + c + ", 'UTF8')), 'hex')" : "sha256_hex(" + c + ")";
    return "(CASE WHEN " + c + " IS NULL THEN '-' ELSE 'sha256:' || " + hex + " END)";
  };
  // A BIGINT column of SQLite may hold anything raw SQL put there; leafOf reads an integer. Any
  // other value makes no leaf, and the append reads the row back through leafOf instead.
  auto number = [&](const char* name) {
    const std::string c = column(name);
    return postgres ? "CAST(" + c + " AS TEXT)"
                    : "(CASE WHEN typeof(" + c + ") = 'integer' THEN CAST(" + c + " AS TEXT) END)";
  };
  return "('signet activity v1\nid ' || " + column("id") + " || '\norganization ' || " +
         column("organization_id") + " || '\ntype ' || " + column("type") + " || '\nstatus ' || " +
         column("status") + " || '\nfingerprint ' || " + column("fingerprint") +
         " || '\nintent ' || " + digest("intent") + " || '\nresult ' || " + digest("result") +
         " || '\nvotes ' || " + digest("votes") + " || '\nfailure ' || " + digest("failure") +
         " || '\ncreated ' || " + number("created_at_ms") + " || '\nupdated ' || " +
         number("updated_at_ms") + " || '\n')";
}

std::string tombstoneSql(const std::string& row) {
  return "('signet activity v1\nid ' || " + row + ".id || '\nstatus DELETED\n')";
}

void writerSetup(Db& db) {
  if (db.isPostgres()) {
    db.exec("SET signet.activity_log = 'on'");
    return;
  }
  // SQLite: the connection's own notes live in its temporary schema, which is transactional
  // like the main one (a savepoint rolled back takes its notes with it) but is not written to
  // the WAL: the notes never outlive the batch that takes them, so putting them in the store
  // file cost a page or more of the WAL a batch for nothing (docs/performance.md). The schema is
  // in memory (temp_store=MEMORY): auto_vacuum, set before its first table, gives the pages of
  // a large batch's notes (an organization deleted with its activities) back at its commit.
  db.exec("PRAGMA temp.auto_vacuum = FULL");
  db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS activity_log_noted (seq INTEGER PRIMARY KEY, activity_id "
      "TEXT NOT NULL, leaf TEXT, leaf_hash TEXT)");
  const std::string note =
      " ON main.activities BEGIN INSERT INTO activity_log_noted "
      "(activity_id, leaf, leaf_hash) VALUES (";
  // The leaf and its hash the write gave (givenLeaf), or else the leaf made here. SQLite's
  // COALESCE evaluates its second argument only when the first is NULL.
  auto given = [](const char* name) {
    return std::string("signet_given('") + name + "' || NEW.id)";
  };
  const std::string changed = "NEW.id, COALESCE(" + given(kGivenLeaf) + ", " +
                              leafSql(false, "NEW") + "), " + given(kGivenLeafHash) + "); END";
  db.exec("CREATE TEMP TRIGGER IF NOT EXISTS activity_log_insert AFTER INSERT" + note + changed);
  db.exec(std::string("CREATE TEMP TRIGGER IF NOT EXISTS activity_log_update AFTER UPDATE OF ") +
          kLeafColumns + note + changed);
  db.exec("CREATE TEMP TRIGGER IF NOT EXISTS activity_log_delete AFTER DELETE" + note + "OLD.id, " +
          tombstoneSql("OLD") + ", NULL); END");
}

namespace {

// The log's head, locked, and the notes taken under the lock, in the order they were made: none
// when nothing is noted.
struct Taken {
  std::optional<Row> head;
  std::vector<Row> notes;
};

// What a note holds, as the append reads it.
constexpr const char* kNoteColumns = "seq, activity_id, leaf";

std::string takeNotesFrom(const std::string& table) {
  return "DELETE FROM " + table + " RETURNING " + kNoteColumns;
}

std::optional<Row> present(std::optional<Row> head) {
  if (!head || head->isNull("size")) throw internalError("the activity log's head row is missing");
  return head;
}

// Notes in the order they were made: a table's sequence numbers, not the order a query returns.
void appendInOrder(std::vector<Row>& notes, std::vector<Row> taken) {
  std::sort(taken.begin(), taken.end(),
            [](const Row& a, const Row& b) { return a.i64("seq") < b.i64("seq"); });
  notes.insert(notes.end(), std::make_move_iterator(taken.begin()),
               std::make_move_iterator(taken.end()));
}

// SQLite: the head and the notes, read when the append runs; its one writer is the lock. A
// migration's notes (in the store) were committed before this transaction began to write, so
// they go before the connection's own (writerSetup).
Taken takeNotes(Db& db) {
  std::vector<Row> notes;
  if (db.queryOne("SELECT seq FROM main.activity_log_pending LIMIT 1"))
    appendInOrder(notes, db.query(takeNotesFrom("main.activity_log_pending")));
  // The connection's own notes are read, then the table is emptied by a DELETE without WHERE or
  // RETURNING, which SQLite does by clearing the table's pages (its truncate optimization)
  // instead of deleting and returning each row: about 8,000 instructions a signature fewer on
  // the committing thread, of some 11,000 (docs/performance.md, the seventh measure).
  auto own =
      db.query(std::string("SELECT ") + kNoteColumns + ", leaf_hash FROM temp.activity_log_noted");
  if (!own.empty()) db.exec("DELETE FROM temp.activity_log_noted");
  appendInOrder(notes, std::move(own));
  if (notes.empty()) return {};
  return {present(db.queryOne("SELECT size, frontier FROM activity_log_head WHERE id = 1")),
          std::move(notes)};
}

// PostgreSQL: the check that the session notes changes, the head's lock and the notes' DELETE,
// sent without waiting, in one pipeline which the server runs in order, so that the notes are
// taken once the lock is held.
struct Sent {
  std::shared_ptr<RowsAhead> state, notes;
};

Sent lockHeadAndTakeNotes(Db& db) {
  // The head row is the log's lock: another gateway's batch waits here until this one commits,
  // and then reads the head this one wrote. It is taken only when something is noted, so that
  // batches without activities do not wait for each other (but for notes another batch took
  // under the lock, which the DELETE waits for).
  auto state = db.queryAhead(
      "SELECT current_setting('signet.activity_log', true) AS noting, noted.pending, head.size, "
      "head.frontier FROM (SELECT CASE WHEN EXISTS (SELECT 1 FROM activity_log_pending) THEN 1 "
      "ELSE 0 END AS pending) AS noted LEFT JOIN LATERAL (SELECT size, frontier FROM "
      "activity_log_head WHERE id = 1 AND noted.pending = 1 FOR UPDATE) AS head ON true",
      {});
  // Taken under the lock: notes every session sees (a migration's, of a whole store) may have
  // been appended by another gateway while this one waited for it.
  return {state, db.queryAhead(takeNotesFrom("activity_log_pending"), {})};
}

// What the statements sent found, once answered.
Taken taken(Sent& sent) {
  const Row& row = sent.state->rows().at(0);
  std::vector<Row> notes;
  appendInOrder(notes, sent.notes->rows());
  // A session that lost its setting (a pooler in between, DISCARD ALL) would write activities
  // without noting them: this batch fails, loudly. Setting it here would be rolled back with the
  // batch; the group commit sets the session up again once the batch is rolled back
  // (Database::setWriteHooks), and the next batch notes again.
  if (!row.optStr("noting") || *row.optStr("noting") != "on")
    throw Error(Code::kUnavailable,
                "the store's session stopped noting activity changes for the activity log; it "
                "is set to note them again: retry");
  if (row.i64("pending") == 0) {
    // Notes committed between the check and the DELETE (a migration's, run beside this
    // gateway) were taken without the lock: appended now, they could go out of order. The
    // batch fails and is rolled back, the notes with it; as after a deadlock, its callers are
    // answered 503 and retry, and a starting gateway tries again.
    if (!notes.empty())
      throw StoreUnavailable(
          "activity changes were noted while this batch checked the activity log; retry");
    return {};
  }
  return {present(row), std::move(notes)};
}

// Activities read, and leaves appended, a slice at a time: a slice's statement has fewer than
// 999 parameters (SQLite's limit), and a migration's notes may name a whole store's activities.
// A batch of requests is one slice.
constexpr size_t kSlice = 100;

// What an activity's last note in the batch says.
struct Noted {
  std::optional<std::string> leaf;      // none when the note came without (a migration's)
  std::optional<std::string> leafHash;  // in hex, when the write gave it (givenLeaf)
};

// The leaves of the activities `ids` whose notes came without one, read from the store as it is
// now, which the append sees as the commit will (a tombstone for an activity deleted since).
void readLeaves(Db& db, std::map<std::string, Noted>& noted, const SqlParams& ids) {
  SqlParams missing;
  for (const auto& id : ids)
    if (!noted.at(std::get<std::string>(id)).leaf) missing.push_back(id);
  if (missing.empty()) return;
  for (const auto& row :
       db.query(std::string("SELECT ") + kLeafColumns + " FROM activities WHERE id IN (" +
                    placeholders(missing.size()) + ")",
                missing))
    noted[row.str("id")] = {leafOf(row), std::nullopt};
  for (const auto& id : missing) {
    Noted& n = noted.at(std::get<std::string>(id));
    if (!n.leaf) n = {tombstoneOf(std::get<std::string>(id)), std::nullopt};
  }
}

// Appends what `taken` holds as leaves.
void appendTaken(Db& db, Taken taken, int64_t nowMs) {
  auto& [headRow, pending] = taken;
  if (!headRow || pending.empty()) return;
  merkle::Frontier frontier = frontierOf(*headRow);
  // An activity changed twice in one transaction is one leaf, in the place of its first change:
  // its state at the commit, which its last note holds.
  std::vector<std::string> order;
  std::map<std::string, Noted> noted;
  for (const auto& p : pending) {
    auto [at, first] = noted.try_emplace(p.str("activity_id"));
    if (first) order.push_back(at->first);
    at->second = {p.optStr("leaf"), p.has("leaf_hash") ? p.optStr("leaf_hash") : std::nullopt};
  }

  for (size_t from = 0; from < order.size(); from += kSlice) {
    SqlParams ids(order.begin() + from, order.begin() + std::min(order.size(), from + kSlice));
    readLeaves(db, noted, ids);
    // The leaves are found by activity through their index (core migration 27); the columns of
    // the pointers that did it before are left unwritten. A deleted activity (its organization
    // deleted) is noted with a tombstone, appended as its leaf: its absence is logged.
    std::string leavesSql =
        "INSERT INTO activity_log_leaves (idx, activity_id, leaf, appended_at_ms) VALUES ";
    SqlParams leafParams;
    std::vector<std::pair<merkle::Node, merkle::Hash>> nodes;
    for (const auto& id : ids) {
      const std::string& activityId = std::get<std::string>(id);
      // Taken out as it is used: a migration's notes may name a whole store's activities.
      const Noted n = std::move(noted.at(activityId));
      noted.erase(activityId);
      const auto index = static_cast<int64_t>(frontier.size());
      leavesSql += leafParams.empty() ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)";
      leafParams.insert(leafParams.end(), {index, activityId, *n.leaf, nowMs});
      merkle::Hash hash = n.leafHash ? merkle::fromHex(*n.leafHash) : merkle::leafHash(*n.leaf);
      nodes.push_back({{0, frontier.size()}, hash});
      frontier.append(hash, nodes);
    }
    // The log's writes come after every write's savepoint, so that whatever refuses one of them
    // (a lock another gateway's batch holds ending in a deadlock, a lost connection) fails the
    // whole batch however it is reported: on PostgreSQL they go with the COMMIT instead of a
    // round trip each (execUnanswered).
    execUnanswered(db, leavesSql, leafParams);
    // A slice of 100 leaves is 100 leaf hashes and fewer than 100 + 64 subtrees: two parameters
    // each. They are numbered in the order they are made, so they go at the end of the table.
    std::string nodeSql = "INSERT INTO activity_log_nodes (idx, hash) VALUES ";
    SqlParams nodeParams;
    for (size_t i = 0; i < nodes.size(); ++i) {
      nodeSql += i ? ", (?, ?)" : "(?, ?)";
      nodeParams.insert(nodeParams.end(),
                        {static_cast<int64_t>(merkle::storedIndex(nodes[i].first)),
                         merkle::toHex(nodes[i].second)});
    }
    execUnanswered(db, nodeSql, nodeParams);
  }
  execUnanswered(db, "UPDATE activity_log_head SET size = ?, frontier = ? WHERE id = 1",
                 {static_cast<int64_t>(frontier.size()), joinHashes(frontier.subtrees())});
}

}  // namespace

std::function<void(Db&)> startAppend(Db& db, int64_t nowMs) {
  if (!db.isPostgres()) return [nowMs](Db& db) { appendTaken(db, takeNotes(db), nowMs); };
  auto sent = std::make_shared<Sent>(lockHeadAndTakeNotes(db));
  return [sent, nowMs](Db& db) {
    appendTaken(db, taken(*sent), nowMs);
    // A change noted since the start would be appended by the next batch, as a state this one
    // never committed: the batch fails instead, at its COMMIT, with which this goes. Only this
    // transaction's notes can carry a leaf here (other sessions' are uncommitted, or were taken
    // by their own batches; a migration's carry none), and the cast of the id fails on any.
    execUnanswered(db,
                   "SELECT CAST(activity_id || ' was changed after the activity log took this "
                   "batch''s notes' AS INTEGER) FROM activity_log_pending WHERE leaf IS NOT NULL",
                   {});
  };
}

void appendPending(Db& db, int64_t nowMs) {
  startAppend(db, nowMs)(db);
}

Head head(Db& db) {
  auto row = db.queryOne("SELECT size, frontier FROM activity_log_head WHERE id = 1");
  if (!row) throw internalError("the activity log's head row is missing");
  merkle::Frontier f = frontierOf(*row);
  return {f.size(), f.root()};
}

merkle::NodeReader storedNodes(Db& db, const std::vector<merkle::Node>& nodes) {
  auto found = std::make_shared<std::map<uint64_t, merkle::Hash>>();
  SqlParams indexes;
  for (const auto& n : nodes) indexes.emplace_back(static_cast<int64_t>(merkle::storedIndex(n)));
  if (!indexes.empty())
    for (const auto& row : db.query("SELECT idx, hash FROM activity_log_nodes WHERE idx IN (" +
                                        placeholders(indexes.size()) + ")",
                                    indexes))
      (*found)[static_cast<uint64_t>(row.i64("idx"))] = merkle::fromHex(row.str("hash"));
  return [found](const merkle::Node& n) {
    auto it = found->find(merkle::storedIndex(n));
    if (it == found->end())
      throw internalError("the activity log holds no hash for the subtree at level " +
                          std::to_string(n.level) + ", index " + std::to_string(n.index));
    return it->second;
  };
}

namespace {
// Runs `build` twice: once to learn which stored hashes it reads, then on them.
template <typename T>
T fromStore(Db& db, const std::function<T(const merkle::NodeReader&)>& build) {
  auto nodes = merkle::nodesRead([&](const merkle::NodeReader& r) { build(r); });
  return build(storedNodes(db, nodes));
}
}  // namespace

merkle::Hash rootAt(Db& db, uint64_t size) {
  return fromStore<merkle::Hash>(
      db, [&](const merkle::NodeReader& r) { return merkle::rangeHash(0, size, r); });
}

std::vector<merkle::Hash> inclusionProof(Db& db, uint64_t index, uint64_t size) {
  return fromStore<std::vector<merkle::Hash>>(
      db, [&](const merkle::NodeReader& r) { return merkle::inclusionProof(index, size, r); });
}

std::vector<merkle::Hash> consistencyProof(Db& db, uint64_t first, uint64_t second) {
  return fromStore<std::vector<merkle::Hash>>(
      db, [&](const merkle::NodeReader& r) { return merkle::consistencyProof(first, second, r); });
}

std::vector<Leaf> leavesOf(Db& db, const std::string& activityId, uint64_t size) {
  std::vector<Leaf> out;
  // A few rows (one a state), through the index of the leaves by activity.
  for (auto& row : db.query("SELECT idx, leaf FROM activity_log_leaves WHERE activity_id = ? AND "
                            "idx < ? ORDER BY idx",
                            {activityId, static_cast<int64_t>(size)})) {
    // The hashed text must name the activity; the column only finds it (a leaf filed under
    // another's is what `signet log verify` reports).
    if (idOf(row.str("leaf")) != activityId) continue;
    // A tombstone ends the activity's history: what follows is of an activity stored again
    // under the same id.
    if (row.str("leaf") == tombstoneOf(activityId)) {
      out.clear();
      continue;
    }
    out.push_back({static_cast<uint64_t>(row.i64("idx")), activityId, row.str("leaf")});
  }
  return out;
}

}  // namespace signet::activity_log
