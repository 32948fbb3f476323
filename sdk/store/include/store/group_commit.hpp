// Group commit: the writes of concurrent requests share one transaction and one sync to disk.
//
// A request's write (a function over Db) is queued. The first writer to find no batch running
// leads: it takes everything queued (up to kMaxBatch), opens one transaction and runs each
// write in a savepoint of its own, so a write that throws rolls back only itself and its error
// goes back to its own caller. Then one COMMIT makes the whole batch durable, and only then
// does every caller return. Writes that arrive meanwhile wait for the next batch, which one of
// them leads. A lone write skips the savepoint: its transaction is its own.
//
// The cost of a sync is paid once per batch instead of once per request, and a request never
// holds the write lock while waiting for the disk on its own: the more requests arrive, the
// larger the batches. See docs/durability.md.
//
// A write may also be posted with a completion instead of waited for (post): its thread goes
// on with other work, and whichever thread leads the batch calls the completion once the batch
// has ended. The HTTP server writes a signature's answer from there, so no thread sleeps while
// its request waits for the disk.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "store/connection_pool.hpp"

namespace signet {

class GroupCommit {
 public:
  static constexpr size_t kMaxBatch = 64;
  // `lanes`: batches that may run at once. SQLite has one writer, so one; PostgreSQL runs
  // concurrent transactions, each batch on a connection of its own.
  GroupCommit(ConnectionPool& pool, int lanes) : pool_(pool), lanes_(lanes) {}
  ~GroupCommit();  // after every posted write's completion

  // Runs `write` in the next batch and returns once that batch committed; rethrows what
  // `write` threw (its own writes rolled back, the others' kept), or the commit's failure.
  void run(const std::function<void(Db&)>& write);
  // Queues `write` for the next batch and returns; `then` is called once that batch ended, with
  // what `write` threw or the commit's failure (null when committed). When a lane is free this
  // thread leads the batch itself, and so calls `then` before returning. Otherwise a committing
  // thread of the store's own leads it: a posted write has no thread waiting for it, and a
  // thread that waits in run() leads only until its own write is done. `then` runs holding no
  // lock of the store's, on any thread that leads a batch, a run() caller among them: it must
  // not wait for anything such a thread may hold (the HTTP server's completion takes only the
  // connection of its own request, which no other thread touches while it waits). Throws only
  // before queueing (a write inside a batch's own).
  void post(std::function<void(Db&)> write, std::function<void(std::exception_ptr)> then);

  // A step every batch runs last, in its transaction, before its COMMIT, in two parts around the
  // writes' steps (afterWrites): it starts once the writes are sent, before their steps, and
  // what the start returns finishes after them. The start may send its reads without waiting
  // (Db::queryAhead), so that on PostgreSQL they go in the round trip the steps' first read
  // makes; a step must then not change what the start read (the activity log takes the batch's
  // notes at its start and appends them at its finish: gateway/log/). When either part throws,
  // the batch fails as a failed COMMIT does: nothing of it is stored. Set once, before the
  // first write.
  using BeforeCommit = std::function<std::function<void(Db&)>(Db&)>;
  void setBeforeCommit(BeforeCommit step) { beforeCommit_ = std::move(step); }
  // A step run on a batch's connection after the batch's transaction failed as a whole (its
  // before-commit step or its COMMIT refused, or the transaction lost) and was rolled back,
  // outside any transaction: what the rollback undid of the session (a setting the
  // before-commit step set again) is set again for the next batch. Its own failure is ignored:
  // the next batch finds the session as it is. Set once, before the first write.
  void setAfterRollback(std::function<void(Db&)> step) { afterRollback_ = std::move(step); }

  // Called by a write, from inside its batch: `step` runs once every write of the batch has
  // been sent, after the last write's savepoint and between the before-commit step's start and
  // its finish, in the order the writes asked. It is for reading the answers the write sent ahead
  // without waiting for (Db::queryAhead): on PostgreSQL the batch's writes then share one round
  // trip instead of taking one each. A write that fails drops its steps with its savepoint. A step
  // that throws fails the whole batch, as the before-commit step does, since its write's savepoint
  // is gone by then: so a step writes only rows that nothing but the store's own trouble can refuse
  // (fresh keys, no conflict), and says anything else it finds through its write's own state.
  // Steps run after the before-commit step's start, which on PostgreSQL has taken the activity
  // log's notes and holds its head's lock: so a step changes no activity (the batch would fail:
  // activity_log::startAppend), and waits for no lock another gateway may hold while it waits
  // for that head (the server would end the deadlock by failing one side: 503, retry). Reads
  // and inserts of fresh keys are what a step is for. Throws outside a batch.
  static void afterWrites(std::function<void(Db&)> step);

  struct Stats {
    uint64_t batches = 0, writes = 0;
  };
  Stats stats() const;

 private:
  // A queued write and the thread waiting for it. Each waits on a condition of its own, so
  // that the end of a batch wakes only the writers it finished and the one that leads next:
  // with one shared condition every waiter woke, and most went back to sleep at once, two
  // futex calls and a context switch each for nothing. The leader wakes them after letting go
  // of the mutex (a thread woken under it only wakes to wait for it), so a job is shared: its
  // waiter may return and leave before the leader's notification is through.
  struct Job {
    const std::function<void(Db&)>* write;
    std::function<void(Db&)> posted;               // post(): the write, kept here
    std::function<void(std::exception_ptr)> then;  // post(): no thread waits, this is called
    std::exception_ptr error;
    bool done = false;
    bool taken = false;                                 // in a batch that runs now
    std::chrono::steady_clock::time_point queued;       // when the write joined the queue
    std::vector<std::function<void(Db&)>> afterWrites;  // its steps (afterWrites)
    std::condition_variable wake;
  };
  // Leads one batch, with the mutex held on entry and exit.
  void lead(std::unique_lock<std::mutex>& lock);
  // Wakes whoever leads `next`: its own thread, or a committer when it is posted.
  void wakeLeader(const std::shared_ptr<Job>& next);
  // A committer's loop: leads while a posted write is first in line and a lane is free.
  void commitPosted();
  // With the mutex held: the queued write whose thread should lead next, when a lane is free
  // and something waits; else null.
  std::shared_ptr<Job> nextLeader() const;
  using Batch = std::deque<std::shared_ptr<Job>>;
  void runBatch(Batch& batch);
  // Runs `job`'s write, whose afterWrites calls gather its steps in the job; what it throws
  // is its caller's to handle, dropping its steps among it.
  static void runWrite(Job& job, Db& db);

  ConnectionPool& pool_;
  mutable std::mutex mutex_;
  Batch queue_;
  const int lanes_;
  int leaders_ = 0;
  // One committing thread a lane, started by the first post().
  std::vector<std::thread> committers_;
  std::condition_variable committerWake_;
  bool stopping_ = false;
  Stats stats_;
  BeforeCommit beforeCommit_;
  std::function<void(Db&)> afterRollback_;
  // Rolls back a batch that failed as a whole, then runs afterRollback_; quietly (the first
  // failure is the one worth reporting).
  void endFailedBatch(SqlConnection& db);
};

}  // namespace signet
