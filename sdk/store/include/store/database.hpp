// The store: a pool of connections to SQLite (embedded default, WAL, synchronous=FULL) or
// PostgreSQL, exposed to the rest of the gateway as signet::Db. Writes go through
// transaction(), which commits concurrent writers together (group commit, see
// group_commit.hpp) and rolls back any writer that throws.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "signet/db.hpp"
#include "store/connection_pool.hpp"
#include "store/group_commit.hpp"
#include "store/sqlite_checkpointer.hpp"

namespace signet {

enum class Backend { kSqlite, kPostgres };

struct DatabaseConfig {
  Backend backend = Backend::kSqlite;
  std::string connection;  // SQLite: file path; PostgreSQL: libpq connection string
  int maxSessions = 32;    // opened as needed
  int writeLanes = 1;      // PostgreSQL: write batches run at once (GroupCommit)
};

// One connection outside any pool (tools and tests); a SQLite one hands its checkpoints to
// `checkpointer` when given.
std::unique_ptr<SqlConnection> openConnection(const DatabaseConfig& config,
                                              SqliteCheckpointer* checkpointer = nullptr);

class Database {
 public:
  explicit Database(const DatabaseConfig& config);
  ~Database();
  Backend backend() const { return config_.backend; }

  // Runs fn inside a transaction (its own savepoint of a shared one) and returns once that
  // transaction is committed; rethrows what fn threw, with fn's writes rolled back.
  void transaction(const std::function<void(Db&)>& fn);
  // The same, without waiting: `then` is called once the transaction committed (with null) or
  // failed (with why), on whichever thread ends its batch (GroupCommit::post).
  void transactionThen(std::function<void(Db&)> fn, std::function<void(std::exception_ptr)> then);
  // From inside fn: `step` runs once every write of fn's batch was sent, before the COMMIT, to
  // read what fn sent without waiting (GroupCommit::afterWrites says what it may do).
  static void afterWrites(std::function<void(Db&)> step) {
    GroupCommit::afterWrites(std::move(step));
  }
  // Runs fn on a pooled connection outside any explicit transaction (reads). When the store
  // fails under it for a passing reason (StoreUnavailable: a connection lost in a failover, a
  // restarted server), fn runs once more on a live connection, so fn must only read.
  void read(const std::function<void(Db&)>& fn);
  // Runs fn in a read-only transaction: one consistent snapshot, writes refused. The
  // pipeline decides and runs read-only activities (signing) here, outside the write lock.
  void snapshot(const std::function<void(Db&)>& fn);
  // What this process's write transactions do besides their writes: `setup` runs once on each
  // connection the write batches use (the idle ones are closed, so that every later one is set
  // up), and again after a batch that failed as a whole (GroupCommit::setAfterRollback); and
  // `beforeCommit` in every batch before its COMMIT, in two parts around the writes' steps
  // (GroupCommit::setBeforeCommit). The activity log notes this process's own changes through
  // the first and appends them through the second (gateway/log/activity_log.hpp). Called once,
  // before serving.
  void setWriteHooks(std::function<void(Db&)> setup, GroupCommit::BeforeCommit beforeCommit);
  // Batches committed and writes they held since the start.
  GroupCommit::Stats commitStats() const { return commits_.stats(); }
  // SQLite: the checkpoints run off the commit path so far (sqlite_checkpointer.hpp).
  SqliteCheckpointer::Stats checkpointStats() const {
    return checkpointer_ ? checkpointer_->stats() : SqliteCheckpointer::Stats{};
  }
  // SQLite: waits (at most `limit`) until no checkpoint is due or running (tests).
  bool checkpointsIdle(std::chrono::milliseconds limit) {
    return !checkpointer_ || checkpointer_->waitIdle(limit);
  }

  // Applies the migrations of `module` that the database has not recorded yet, each in its
  // own transaction. Refuses a list whose versions are not strictly increasing.
  void migrate(const std::string& module, const std::vector<Migration>& migrations);
  // Versions recorded for a module.
  std::vector<int> appliedMigrations(const std::string& module);

 private:
  DatabaseConfig config_;
  // Before the pool: its connections report to it until the last of them is closed.
  std::unique_ptr<SqliteCheckpointer> checkpointer_;
  ConnectionPool pool_;
  // setWriteHooks' setup, run by the writers' opener; before writers_, which holds the opener.
  std::shared_ptr<std::function<void(Db&)>> writerSetup_ =
      std::make_shared<std::function<void(Db&)>>();
  // The write batches' own connections, one a lane. Kept apart from the readers' so that a
  // SQLite writer finds its page cache still valid at its next batch: a connection drops
  // its cache whenever another connection wrote since its last transaction.
  ConnectionPool writers_;
  GroupCommit commits_;
};

}  // namespace signet
