#include "store/sqlite_checkpointer.hpp"

#include <Poco/Logger.h>
#include <sqlite3.h>

namespace signet {

SqliteCheckpointer::SqliteCheckpointer(std::string path) : path_(std::move(path)) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    // Nothing is attached then, and the connections checkpoint by themselves as before.
    Poco::Logger::get("signet.store")
        .warning("checkpoints stay on the commit path: cannot open %s: %s", path_,
                 std::string(db_ ? sqlite3_errmsg(db_) : "out of memory"));
    sqlite3_close(db_);
    db_ = nullptr;
    return;
  }
  sqlite3_busy_timeout(db_, 1000);
  // A connection learns the file is in WAL mode only once it reads it; until then its
  // checkpoints do nothing. The pool's connections set the same mode (it persists in the file).
  sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
  sqlite3_exec(db_, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr);
  thread_ = std::thread([this] { run(); });
}

SqliteCheckpointer::~SqliteCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  sqlite3_close(db_);
}

void SqliteCheckpointer::attach(sqlite3* db) {
  if (db_) sqlite3_wal_hook(db, &onCommit, this);
}

SqliteCheckpointer::Stats SqliteCheckpointer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

// Called by SQLite on the committing thread after each commit (its write lock released): it
// only flags the work and wakes the checkpoint thread.
int SqliteCheckpointer::onCommit(void* self, sqlite3* db, const char* schema, int logPages) {
  if (logPages < kThresholdPages) return SQLITE_OK;
  auto* me = static_cast<SqliteCheckpointer*>(self);
  if (logPages >= kInlinePages) {
    // Busy when the thread is checkpointing right now; the next commit tries again.
    if (sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr) ==
        SQLITE_OK) {
      std::lock_guard lock(me->mutex_);
      ++me->stats_.inCommit;
    }
    return SQLITE_OK;
  }
  {
    std::lock_guard lock(me->mutex_);
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
    int logged = 0, copied = 0;
    int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
      Poco::Logger::get("signet.store")
          .warning("WAL checkpoint of %s failed: %s", path_, std::string(sqlite3_errmsg(db_)));
    lock.lock();
    running_ = false;
    ++stats_.checkpoints;
    if (copied > 0) stats_.pages += static_cast<uint64_t>(copied);
    if (!due_) idle_.notify_all();
  }
}

}  // namespace signet
