#include "store/sqlite_checkpointer.hpp"

#include <Poco/Logger.h>
#include <sqlite3.h>

#include <algorithm>

#include "signet/metrics.hpp"
#include "store/sql_connection.hpp"

namespace signet {

SqliteCheckpointer::SqliteCheckpointer(std::string path) : path_(std::move(path)) {
  try {
    // Opened like the pool's, so it knows the file is in WAL mode: a connection that has not
    // seen that yet checkpoints nothing.
    db_ = openSqlite(path_);
  } catch (const std::exception& e) {
    // Nothing is attached then, and the connections checkpoint by themselves as before.
    Poco::Logger::get("signet.store")
        .warning("checkpoints stay on the commit path: %s", std::string(e.what()));
    return;
  }
  thread_ = std::thread([this] { run(); });
}

SqliteCheckpointer::~SqliteCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SqliteCheckpointer::attach(sqlite3* db) {
  if (db_) sqlite3_wal_hook(db, &onCommit, this);
}

SqliteCheckpointer::Stats SqliteCheckpointer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

// Called by SQLite on the committing thread after each commit (its write lock released): each
// time the log has grown by the threshold it wakes the checkpoint thread; past kInlinePages it
// checkpoints right here.
int SqliteCheckpointer::onCommit(void* self, sqlite3* db, const char* schema, int logPages) {
  auto* me = static_cast<SqliteCheckpointer*>(self);
  if (logPages >= kInlinePages) {
    auto start = std::chrono::steady_clock::now();
    int rc = sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    // Busy when the thread is checkpointing right now, which near this bound it often is:
    // left to the next commit, the log would grow on while the two keep meeting. So this one
    // waits for the thread (no other commit runs meanwhile: one writer) and tries again.
    if (rc == SQLITE_BUSY && me->waitIdle(std::chrono::seconds(5)))
      rc = sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    if (rc == SQLITE_OK) {
      Metrics::global().observe("signet_sqlite_checkpoint_seconds", {{"where", "commit"}},
                                secondsSince(start));
      std::lock_guard lock(me->mutex_);
      ++me->stats_.inCommit;
    }
    return SQLITE_OK;
  }
  {
    std::lock_guard lock(me->mutex_);
    // A shorter log than the last commit saw was started again from its beginning.
    if (logPages < me->lastLogPages_) me->dueAtPages_ = kThresholdPages;
    me->lastLogPages_ = logPages;
    // Under steady writes the log is rarely found still, so it stays past the threshold.
    // Waking the thread at every commit then made a checkpoint, with its two syncs, of every
    // few commits, and copied a page once for each commit that changed it. Once per
    // threshold's growth, a page that many commits changed is copied once. The log is then
    // started again by the commit past kInlinePages, whose checkpoint every write waits for:
    // from kLastPages on each commit wakes the thread, so that little is left for that one.
    if (logPages < me->dueAtPages_) return SQLITE_OK;
    me->dueAtPages_ = std::min(logPages + kThresholdPages, kLastPages);
    me->due_ = true;
  }
  me->wake_.notify_one();
  return SQLITE_OK;
}

bool SqliteCheckpointer::waitIdle(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, limit, [&] { return !due_ && !running_; });
}

void SqliteCheckpointer::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return due_ || stopping_; });
    if (stopping_) return;
    due_ = false;
    running_ = true;
    lock.unlock();
    int64_t copied = 0;
    try {
      // busy, log pages, pages copied; a busy checkpoint is tried again when the next is due.
      auto start = std::chrono::steady_clock::now();
      copied = db_->queryOne("PRAGMA wal_checkpoint(PASSIVE)")->i64("checkpointed");
      Metrics::global().observe("signet_sqlite_checkpoint_seconds", {{"where", "thread"}},
                                secondsSince(start));
    } catch (const std::exception& e) {
      Poco::Logger::get("signet.store")
          .warning("WAL checkpoint of %s failed: %s", path_, std::string(e.what()));
    }
    lock.lock();
    running_ = false;
    ++stats_.checkpoints;
    if (copied > 0) stats_.pages += static_cast<uint64_t>(copied);
    if (!due_) idle_.notify_all();
  }
}

}  // namespace signet
