// One open database connection seen as signet::Db. Each connection keeps the statements it has
// prepared, keyed by their text, and reuses them: parsing and planning a statement costs more
// than running the small indexed ones the gateway issues, and the same few dozen texts recur
// on every request. SQLite speaks through its C API, PostgreSQL through libpq; both take the
// gateway's `?` placeholders.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "signet/db.hpp"

namespace signet {

// A failure that says nothing about the request, only that the store could not serve it now: it
// cannot be reached (a server down, a standby not promoted yet), the connection was lost while
// in use (a failover, a restart, pg_terminate_backend), or the server asks for the transaction
// to be run again (a deadlock, a serialization failure; SQLite's lock still held when its busy
// timeout ran out). The transaction it happened in did not commit, unless the connection was
// lost after its COMMIT was sent and before the answer came: then it may have. Clients are
// answered 503 with Retry-After (a retried body is the same activity, by its fingerprint), and
// the pipeline never records it as an activity's failure.
class StoreUnavailable : public DatabaseError {
 public:
  using DatabaseError::DatabaseError;
};

class SqlConnection : public Db {
 public:
  // Opens a transaction. SQLite takes its write lock up front (BEGIN IMMEDIATE), so another
  // process writing the same file (the CLI beside a running server) waits on the busy timeout
  // instead of failing on a lock upgrade.
  virtual void begin() = 0;
  // Opens a read-only transaction: every read in it sees one snapshot, and a write is refused.
  // endSnapshot() closes it (there is nothing to commit).
  virtual void beginSnapshot() = 0;
  virtual void endSnapshot() = 0;
  // PostgreSQL also checks that the server committed: a COMMIT of a transaction that a failed
  // statement left aborted answers ROLLBACK, not an error.
  virtual void commit() { exec("COMMIT"); }
  virtual void rollback() { exec("ROLLBACK"); }
  // A savepoint inside a transaction, named by a number unique within it. A batch names each
  // write's savepoint apart, so that rolling back to one that was never made fails (and fails
  // the batch) instead of reaching an earlier write's.
  virtual void savepoint(int n) { exec("SAVEPOINT " + savepointName(n)); }
  virtual void releaseSavepoint(int n) { exec("RELEASE SAVEPOINT " + savepointName(n)); }
  void rollbackToSavepoint(int n) { exec("ROLLBACK TO SAVEPOINT " + savepointName(n)); }
  // A row change whose answer no one reads (its row count). On PostgreSQL inside a transaction
  // it is not sent at once: it waits and goes with the next statement or the COMMIT, one round
  // trip fewer. A failure is then reported by that statement, which may be the next write's of
  // a batch or the COMMIT, and so fails the whole batch, not only the write that made it. So
  // it is for rows that cannot conflict (fresh keys), whose failure can only be the database's
  // own (a full disk, a lost connection), which fails the batch either way; or for statements
  // outside every write's savepoint (the activity log's, just before the COMMIT), whose failure
  // fails the batch wherever it is reported.
  virtual void execUnanswered(const std::string& sql, const SqlParams& params) {
    exec(sql, params);
  }
  // False once the connection is lost or was left inside a transaction (a rollback that
  // failed); the pool then closes it instead of lending it again.
  virtual bool healthy() const = 0;
  // Whether an idle connection still reaches its server: PostgreSQL may have ended it meanwhile
  // (pg_terminate_backend, a restart, a failover), which only reading from it reveals. Checked
  // before a pooled connection is lent, so that a dead one is replaced instead of failing the
  // request that draws it.
  virtual bool alive() { return true; }
  // Statements prepared and still kept, for tests of the cache.
  virtual size_t preparedStatements() const = 0;
  // Exchanges with the server so far, each a message sent and its answer awaited (0 for a
  // file), for tests of how many a write costs.
  virtual size_t roundTrips() const { return 0; }

 protected:
  static std::string savepointName(int n) { return "signet_write_" + std::to_string(n); }
};

// execUnanswered when `db` is a connection of the store (as a write's Db is), exec otherwise.
inline void execUnanswered(Db& db, const std::string& sql, const SqlParams& params) {
  if (auto* connection = dynamic_cast<SqlConnection*>(&db))
    connection->execUnanswered(sql, params);
  else
    db.exec(sql, params);
}

// Opens (creating when missing) a SQLite file in WAL mode with synchronous=FULL, so a
// committed transaction is on disk before the commit returns. With a checkpointer, the
// connection's WAL checkpoints are left to it instead of running inside its commits.
class SqliteCheckpointer;
std::unique_ptr<SqlConnection> openSqlite(const std::string& path,
                                          SqliteCheckpointer* checkpointer = nullptr);
// Opens a PostgreSQL connection from a libpq connection string.
std::unique_ptr<SqlConnection> openPostgres(const std::string& conninfo);

// Statements kept per connection before the cache is emptied and starts again: the gateway's
// own texts are a few hundred at most; a plugin building texts from data must not grow it.
inline constexpr size_t kMaxPreparedStatements = 1024;

}  // namespace signet
