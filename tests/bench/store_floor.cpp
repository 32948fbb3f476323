// The store's floor: what the smallest durable write costs on this machine's disk, for
// tests/bench/http_bench.sh to set beside a writing request's share of its crypto floor.
//
//   store_floor DIR ROWS_PER_COMMIT ROW_BYTES [SECONDS]
//
// It appends rows of ROW_BYTES to one table with a text key (ids in ascending order, so every
// insert lands on the last page of the key's index) in SQLite with the gateway's durability
// settings: a write-ahead log synced at every COMMIT (synchronous=FULL), copied back into the
// database file by a checkpoint on a thread of its own, as the gateway's checkpointer does
// (so that no commit waits for a checkpoint). One writing thread, one prepared statement,
// ROWS_PER_COMMIT rows a transaction, nothing else: no request, no JSON, no second table or index,
// no other thread to hand a write to. Whatever a gateway does to store an activity durably costs at
// least this much.
//
// Then two costs that a store which commits in groups and serves fresh reads pays per request
// besides its rows, each timed alone on this machine (CPU time, all threads):
//   - a read transaction: BEGIN, one row by its key, COMMIT, on a connection of its own, which is
//     what any request pays to see the store's latest state (a deleted key refused at once);
//   - a hand-off: a thread that waits on a condition variable until another wakes it, and the
//     other way back, which is what a request pays to wait for a commit made by another thread
//     (group commit: it is answered only once its batch's COMMIT has returned).
//
// Two runs of SECONDS each (default 3):
//   - saturated: commits back to back. It prints the CPU time a row cost the process (user and
//     kernel; the kernel's part is mostly the log writes and the sync) and the commits' p50 and
//     p99 (BEGIN to the end of COMMIT).
//   - paced: after each commit it pauses as long as the saturated run's mean commit took, so
//     the disk is busy about half the time. Its commit p99 is the least a request that waits
//     for its commit can add to its own p99 at that load.
#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
}

void exec(sqlite3* db, const char* sql) {
  check(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr), sql);
}

void removeDatabase(const std::filesystem::path& file) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}

double cpuMicros(bool kernelOnly) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; };
  return micros(usage.ru_stime) + (kernelOnly ? 0 : micros(usage.ru_utime));
}

double percentile(std::vector<double> millis, double p) {
  if (millis.empty()) return 0;
  std::sort(millis.begin(), millis.end());
  return millis[std::min(millis.size() - 1, static_cast<size_t>(p * millis.size()))];
}

class Appender {
 public:
  Appender(const std::filesystem::path& file, int rowsPerCommit, int rowBytes)
      : rowsPerCommit_(rowsPerCommit), body_(rowBytes, 'x') {
    removeDatabase(file);
    if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK)
      throw std::runtime_error("cannot open " + file.string());
    exec(db_, "PRAGMA journal_mode=WAL");
    exec(db_, "PRAGMA synchronous=FULL");
    exec(db_, "PRAGMA temp_store=MEMORY");
    exec(db_, "PRAGMA wal_autocheckpoint=0");  // the checkpointer below does it
    exec(db_, "CREATE TABLE rows (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
    check(db_, sqlite3_prepare_v2(db_, "INSERT INTO rows VALUES (?, ?)", -1, &insert_, nullptr),
          "prepare");
  }
  ~Appender() {
    sqlite3_finalize(insert_);
    sqlite3_close(db_);
  }

  // One transaction of rowsPerCommit rows; returns how long it took, in milliseconds.
  double commit() {
    auto start = Clock::now();
    exec(db_, "BEGIN");
    for (int i = 0; i < rowsPerCommit_; ++i) {
      char id[40];
      std::snprintf(id, sizeof id, "00000000-0000-7000-8000-%012llx", next_++);
      sqlite3_bind_text(insert_, 1, id, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(insert_, 2, body_.data(), static_cast<int>(body_.size()), SQLITE_STATIC);
      check(db_, sqlite3_step(insert_), "insert");
      sqlite3_reset(insert_);
    }
    exec(db_, "COMMIT");
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  int rowsPerCommit_;
  std::string body_;
  unsigned long long next_ = 0;
};

// Copies the log back into the database file every 20 ms from a connection of its own, and
// syncs it: the work a durable store does sooner or later for every row, kept off the commits.
class Checkpointer {
 public:
  explicit Checkpointer(const std::filesystem::path& file) {
    if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK)
      throw std::runtime_error("cannot open " + file.string());
    exec(db_, "PRAGMA synchronous=FULL");
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~Checkpointer() {
    stop_ = true;
    thread_.join();
    sqlite3_close(db_);
  }

 private:
  sqlite3* db_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A read transaction on its own connection, as a request makes to read the store's newest
// state; returns its CPU time in microseconds, the mean of `count`.
double readTransactionMicros(const std::filesystem::path& file, int count) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK)
    throw std::runtime_error("cannot open " + file.string());
  sqlite3_stmt* select = nullptr;
  check(db, sqlite3_prepare_v2(db, "SELECT body FROM rows WHERE id = ?", -1, &select, nullptr),
        "prepare");
  double cpu0 = cpuMicros(false);
  for (int i = 0; i < count; ++i) {
    exec(db, "BEGIN");
    sqlite3_bind_text(select, 1, "00000000-0000-7000-8000-000000000000", -1, SQLITE_STATIC);
    check(db, sqlite3_step(select), "select");
    sqlite3_reset(select);
    exec(db, "COMMIT");
  }
  double micros = (cpuMicros(false) - cpu0) / count;
  sqlite3_finalize(select);
  sqlite3_close(db);
  return micros;
}

// Two threads passing a turn back and forth through one mutex and a condition variable each:
// every pass is one thread going to sleep and another waking it. Returns the CPU time of one
// pass in microseconds (both threads), the mean of `count`.
double handOffMicros(int count) {
  std::mutex mutex;
  std::condition_variable turns[2];
  int turn = 0;
  auto play = [&](int me, int passes) {
    for (int i = 0; i < passes; ++i) {
      std::unique_lock lock(mutex);
      turns[me].wait(lock, [&] { return turn == me; });
      turn = 1 - me;
      turns[1 - me].notify_one();
    }
  };
  double cpu0 = cpuMicros(false);
  std::thread other(play, 1, count / 2);
  play(0, count / 2);
  other.join();
  return (cpuMicros(false) - cpu0) / (count / 2 * 2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::cerr << "usage: store_floor DIR ROWS_PER_COMMIT ROW_BYTES [SECONDS]\n";
    return 2;
  }
  // A positive number, or an error naming the argument and what it was given.
  auto positive = [&](int index, const char* name) {
    try {
      size_t used = 0;
      double v = std::stod(argv[index], &used);
      if (used == std::strlen(argv[index]) && v > 0) return v;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(std::string(name) + " must be a positive number, not '" +
                                argv[index] + "'");
  };
  int rowsPerCommit = 0, rowBytes = 0;
  double seconds = 3;
  try {
    rowsPerCommit = static_cast<int>(positive(2, "ROWS_PER_COMMIT"));
    rowBytes = static_cast<int>(positive(3, "ROW_BYTES"));
    if (argc == 5) seconds = positive(4, "SECONDS");
  } catch (const std::invalid_argument& e) {
    std::cerr << "store_floor: " << e.what() << "\n";
    return 2;
  }
  const auto file = std::filesystem::path(argv[1]) / "store-floor.db";
  try {
    Appender appender(file, rowsPerCommit, rowBytes);
    Checkpointer checkpointer(file);
    auto runFor = [&](double pauseMillis) {
      std::vector<double> commits;
      auto end = Clock::now() + std::chrono::duration<double>(seconds);
      while (Clock::now() < end) {
        commits.push_back(appender.commit());
        if (pauseMillis > 0)
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(pauseMillis));
      }
      return commits;
    };

    double cpu0 = cpuMicros(false), kernel0 = cpuMicros(true);
    auto wall0 = Clock::now();
    auto saturated = runFor(0);
    double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
    double rows = static_cast<double>(saturated.size()) * rowsPerCommit;
    double cpu = (cpuMicros(false) - cpu0) / rows, kernel = (cpuMicros(true) - kernel0) / rows;
    double meanCommit = 0;
    for (double m : saturated) meanCommit += m;
    meanCommit /= static_cast<double>(saturated.size());

    auto paced = runFor(meanCommit);
    std::printf(
        "store floor: %d rows of %d bytes a commit, SQLite WAL, synchronous=FULL, %g s a run\n",
        rowsPerCommit, rowBytes, seconds);
    std::printf(
        "  saturated: %.0f rows/s, %.1f us CPU a row, %.1f us of it in the kernel; commit p50 %.2f "
        "ms, p99 %.2f ms\n",
        rows / wall, cpu, kernel, percentile(saturated, 0.5), percentile(saturated, 0.99));
    std::printf(
        "  paced (disk busy half the time): commit p50 %.2f ms, p99 %.2f ms, longest %.2f ms\n",
        percentile(paced, 0.5), percentile(paced, 0.99), percentile(paced, 1.0));
    std::printf("  a read transaction (BEGIN, one row by key, COMMIT): %.1f us CPU\n",
                readTransactionMicros(file, 20000));
    std::printf("  a hand-off between two threads (a wait and a wake): %.1f us CPU\n",
                handOffMicros(20000));
  } catch (const std::exception& e) {
    std::cerr << "store_floor: " << e.what() << "\n";
    removeDatabase(file);
    return 1;
  }
  removeDatabase(file);
  return 0;
}
