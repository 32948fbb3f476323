#include "store/group_commit.hpp"

#include <Poco/Logger.h>

#include "signet/error.hpp"
#include "signet/memory.hpp"
#include "signet/metrics.hpp"

namespace signet {

namespace {
// A write that opened a transaction of its own from inside a batch would wait for itself.
thread_local bool insideBatch = false;
// The steps of the write that runs now on this thread (GroupCommit::afterWrites).
thread_local std::vector<std::function<void(Db&)>>* writeSteps = nullptr;

struct BatchFlag {
  BatchFlag() { insideBatch = true; }
  ~BatchFlag() { insideBatch = false; }
};

// Ends a transaction that already failed; the first failure is the one worth reporting, and
// a connection left inside its transaction is closed by the pool.
void rollbackQuietly(SqlConnection& db) {
  try {
    db.rollback();
  } catch (...) {
  }
}
}  // namespace

void GroupCommit::run(const std::function<void(Db&)>& write) {
  if (insideBatch) throw internalError("a write opened a transaction inside another one");
  auto job = std::make_shared<Job>();
  job->write = &write;
  job->queued = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  queue_.push_back(job);
  while (!job->done) {
    if (job->taken || leaders_ >= lanes_)
      job->wake.wait(lock);
    else
      lead(lock);
  }
  lock.unlock();
  Metrics::global().observe("signet_store_write_seconds", {}, secondsSince(job->queued));
  if (job->error) std::rethrow_exception(job->error);
}

void GroupCommit::post(std::function<void(Db&)> write,
                       std::function<void(std::exception_ptr)> then) {
  if (insideBatch) throw internalError("a write opened a transaction inside another one");
  auto job = std::make_shared<Job>();
  job->posted = std::move(write);
  job->write = &job->posted;
  job->then = std::move(then);
  job->queued = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  if (committers_.empty())  // a store that posts nothing runs none
    for (int i = 0; i < lanes_; ++i) committers_.emplace_back([this] { commitPosted(); });
  queue_.push_back(job);
  // A lane free: this thread leads at once, which spares the hand-off to a committer when the
  // store is not busy.
  if (leaders_ < lanes_) lead(lock);
}

GroupCommit::~GroupCommit() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  committerWake_.notify_all();
  for (auto& t : committers_) t.join();
}

void GroupCommit::commitPosted() {
  // A committer idle for a second gives back what its batches freed (signet/memory.hpp), with
  // the queue's lock let go: the release unmaps pages.
  IdleRelease idle;
  std::unique_lock lock(mutex_);
  for (;;) {
    auto next = nextLeader();
    if (next && next->then) {
      lead(lock);
      idle.worked();
    } else if (stopping_) {
      return;
    } else {
      // Woken or not, a committer that finds nothing to lead releases once a second has passed
      // since it last led: a wake whose job a newcomer took does not start the second again.
      committerWake_.wait_for(lock, std::chrono::seconds(1));
      if (auto again = nextLeader(); (again && again->then) || stopping_) continue;
      lock.unlock();
      idle.waitedIdle();
      lock.lock();
    }
  }
}

void GroupCommit::wakeLeader(const std::shared_ptr<Job>& next) {
  if (!next) return;
  if (next->then)
    committerWake_.notify_one();
  else
    next->wake.notify_one();
}

GroupCommit::Stats GroupCommit::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void GroupCommit::lead(std::unique_lock<std::mutex>& lock) {
  ++leaders_;
  Batch batch;
  const auto takenAt = std::chrono::steady_clock::now();
  while (!queue_.empty() && batch.size() < kMaxBatch) {
    batch.push_back(queue_.front());
    batch.back()->taken = true;
    queue_.pop_front();
  }
  wakeLeader(nextLeader());  // a free lane for what did not fit
  lock.unlock();
  for (const auto& j : batch)
    Metrics::global().observe("signet_store_write_queued_seconds", {},
                              std::chrono::duration<double>(takenAt - j->queued).count());
  try {
    runBatch(batch);
    Metrics::global().observe("signet_store_commit_batch_size", {},
                              static_cast<double>(batch.size()));
  } catch (...) {
    Metrics::global().count("signet_store_commit_failures_total");
    // The batch could not start or end (no connection, a failed COMMIT): nothing of it is
    // durable, so every write in it fails with that cause.
    for (const auto& j : batch)
      if (!j->error) j->error = std::current_exception();
  }
  lock.lock();
  ++stats_.batches;
  stats_.writes += batch.size();
  for (const auto& j : batch) j->done = true;
  --leaders_;
  std::shared_ptr<Job> next = nextLeader();
  lock.unlock();
  for (const auto& j : batch) j->wake.notify_one();
  // The next to lead. Should a newcomer have led and taken its job meanwhile, it waits again.
  wakeLeader(next);
  for (const auto& j : batch) {
    if (!j->then) continue;
    try {
      Metrics::global().observe("signet_store_write_seconds", {}, secondsSince(j->queued));
      j->then(j->error);
    } catch (const std::exception& e) {  // the completion's own fault: the batch goes on
      Poco::Logger::get("signet.store")
          .error("a write's completion failed: %s", std::string(e.what()));
    } catch (...) {
      Poco::Logger::get("signet.store").error("a write's completion failed");
    }
  }
  lock.lock();
}

void GroupCommit::afterWrites(std::function<void(Db&)> step) {
  if (!writeSteps) throw internalError("a step after the batch's writes asked for outside a write");
  writeSteps->push_back(std::move(step));
}

void GroupCommit::runWrite(Job& job, Db& db) {
  struct Steps {
    explicit Steps(Job& job) { writeSteps = &job.afterWrites; }
    ~Steps() { writeSteps = nullptr; }
  } steps(job);
  (*job.write)(db);
}

std::shared_ptr<GroupCommit::Job> GroupCommit::nextLeader() const {
  return !queue_.empty() && leaders_ < lanes_ ? queue_.front() : nullptr;
}

void GroupCommit::runBatch(Batch& batch) {
  BatchFlag flag;
  auto lease = pool_.acquire();
  SqlConnection& db = *lease;
  db.begin();
  if (batch.size() == 1) {
    try {
      runWrite(*batch.front(), db);
    } catch (...) {
      batch.front()->error = std::current_exception();
      db.rollback();
      return;
    }
  } else {
    int n = 0;
    for (const auto& j : batch) {
      db.savepoint(++n);
      try {
        runWrite(*j, db);
        db.releaseSavepoint(n);
      } catch (...) {
        j->error = std::current_exception();
        j->afterWrites.clear();  // undone with the write's savepoint
        try {
          db.rollbackToSavepoint(n);
          db.releaseSavepoint(n);
        } catch (const StoreUnavailable&) {
          endFailedBatch(db);  // the store went away: that is what every write failed with
          throw;
        } catch (...) {
          // The failure took the whole transaction with it (a full disk, a deadlock, an earlier
          // write's statement sent without waiting and refused, which this write's statement
          // reported): the savepoint is gone, the writes that had succeeded are gone too, and
          // they fail with the cause, not with the savepoint's absence.
          endFailedBatch(db);
          std::rethrow_exception(j->error);
        }
      }
    }
  }
  try {
    // A lone write that failed returned above; in a larger batch some write may have failed,
    // its savepoint gone (and its steps with it), and the steps see only what is to be
    // committed.
    std::function<void(Db&)> finish = beforeCommit_ ? beforeCommit_(db) : nullptr;
    for (const auto& j : batch)
      for (const auto& step : j->afterWrites) step(db);
    if (finish) finish(db);
    const auto start = std::chrono::steady_clock::now();
    db.commit();
    Metrics::global().observe("signet_store_commit_seconds", {}, secondsSince(start));
  } catch (...) {
    endFailedBatch(db);
    throw;
  }
}

void GroupCommit::endFailedBatch(SqlConnection& db) {
  rollbackQuietly(db);
  if (!afterRollback_) return;
  try {
    afterRollback_(db);
  } catch (...) {
  }
}

}  // namespace signet
