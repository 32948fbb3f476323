// Open connections lent to one thread at a time. A connection goes back to the pool when its
// lease ends, unless it was lost; at most `max` are open, and a caller waits (bounded) for one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "store/sql_connection.hpp"

namespace signet {

class ConnectionPool {
 public:
  using Opener = std::function<std::unique_ptr<SqlConnection>()>;
  ConnectionPool(Opener open, size_t max) : open_(std::move(open)), max_(max) {}

  class Lease {
   public:
    Lease(ConnectionPool& pool, std::unique_ptr<SqlConnection> c)
        : pool_(&pool), c_(std::move(c)) {}
    Lease(Lease&& other) noexcept = default;
    ~Lease() {
      if (pool_ && c_) pool_->giveBack(std::move(c_));
    }
    SqlConnection& operator*() const { return *c_; }
    SqlConnection* operator->() const { return c_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<SqlConnection> c_;
  };

  // An idle connection, or a new one while fewer than `max` are open; otherwise waits up to
  // `wait` for one to come back and then fails as unavailable.
  Lease acquire(std::chrono::milliseconds wait = std::chrono::seconds(10));
  // Closes the idle connections: the next callers get fresh ones (Database::setWriteHooks).
  void closeIdle();

 private:
  void giveBack(std::unique_ptr<SqlConnection> c);

  Opener open_;
  size_t max_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;
  size_t openCount_ = 0;
};

}  // namespace signet
