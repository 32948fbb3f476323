// Moves SQLite's WAL checkpoints off the commit path.
//
// By default SQLite checkpoints inside the COMMIT that grows the write-ahead log past 1000
// pages: that commit copies the log back into the database file and syncs it, while every
// other writer of the gateway waits for it (one writer, group commit). The connections of a
// gateway's pool instead report each commit's log size here (sqlite3_wal_hook, which also
// turns their automatic checkpoints off), and once the log passes the threshold a thread of
// its own runs a PASSIVE checkpoint on a connection of its own, beside the writers; then again
// each time the log has grown by the threshold, so that a page many commits changed is copied
// once, not once a commit.
//
// Under steady writes a PASSIVE checkpoint rarely finds the log still when it ends, and the
// log is reused only once it was copied completely. So past four times the threshold the
// commit that finds it so long checkpoints by itself, as SQLite's own hook would: no other
// write runs meanwhile (one writer), the copy completes and the next write starts the log
// again. That bounds the log. Just before that bound the thread checkpoints after every
// commit, so that the one inside a commit finds little left to copy.
//
// Durability is unchanged: a COMMIT still returns only once its log frames are synced, and a
// checkpoint syncs the database file before the log is reused (SQLite's "Write-Ahead
// Logging", "Checkpointing"). A checkpoint that cannot finish (a reader still on old pages)
// is run again once the log has grown by the threshold again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace signet {

class SqlConnection;

class SqliteCheckpointer {
 public:
  static constexpr int kThresholdPages = 1000;  // SQLite's own default
  static constexpr int kInlinePages = 4 * kThresholdPages;
  static constexpr int kLastPages = kInlinePages - kThresholdPages / 4;
  explicit SqliteCheckpointer(std::string path);
  ~SqliteCheckpointer();
  SqliteCheckpointer(const SqliteCheckpointer&) = delete;
  SqliteCheckpointer& operator=(const SqliteCheckpointer&) = delete;

  // Has `db` report its commits here instead of checkpointing by itself (unless this
  // checkpointer could not open the file, when `db` keeps checkpointing as before).
  void attach(sqlite3* db);

  struct Stats {
    uint64_t checkpoints = 0;  // run on the checkpointer's thread
    uint64_t inCommit = 0;     // run inside a commit, the log being past kInlinePages
    uint64_t pages = 0;        // log pages they copied into the database file
  };
  Stats stats() const;
  // Waits (at most `limit`) until no checkpoint is due or running; whether it got there.
  bool waitIdle(std::chrono::milliseconds limit);

 private:
  static int onCommit(void* self, sqlite3* db, const char* schema, int logPages);
  void run();

  const std::string path_;
  std::unique_ptr<SqlConnection> db_;  // the checkpoints' own connection
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  bool due_ = false;
  bool running_ = false;
  bool stopping_ = false;
  int lastLogPages_ = 0;              // the log's length at the last commit
  int dueAtPages_ = kThresholdPages;  // the length at which the next checkpoint is due
  Stats stats_;
  std::thread thread_;
};

}  // namespace signet
