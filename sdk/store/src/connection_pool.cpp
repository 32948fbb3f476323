#include "store/connection_pool.hpp"

#include "signet/error.hpp"
#include "signet/metrics.hpp"

namespace signet {

ConnectionPool::Lease ConnectionPool::acquire(std::chrono::milliseconds wait) {
  const auto started = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  bool got = returned_.wait_for(lock, wait, [&] { return !idle_.empty() || openCount_ < max_; });
  Metrics::global().observe("signet_store_pool_wait_seconds", {}, secondsSince(started));
  if (!got)
    throw Error(Code::kUnavailable,
                "all " + std::to_string(max_) + " database connections stayed busy; try again");
  while (!idle_.empty()) {
    auto c = std::move(idle_.back());
    idle_.pop_back();
    if (c->alive()) return Lease(*this, std::move(c));
    --openCount_;  // ended by the server while idle: dropped, and another tried or opened
  }
  ++openCount_;  // counted before opening, so that concurrent callers respect the bound
  lock.unlock();
  try {
    return Lease(*this, open_());
  } catch (...) {
    lock.lock();
    --openCount_;
    returned_.notify_one();
    throw;
  }
}

void ConnectionPool::closeIdle() {
  std::lock_guard lock(mutex_);
  openCount_ -= idle_.size();
  idle_.clear();
  returned_.notify_all();
}

void ConnectionPool::giveBack(std::unique_ptr<SqlConnection> c) {
  std::lock_guard lock(mutex_);
  if (c->healthy())
    idle_.push_back(std::move(c));
  else
    --openCount_;  // dropped: the next caller opens a fresh one
  returned_.notify_one();
}

}  // namespace signet
