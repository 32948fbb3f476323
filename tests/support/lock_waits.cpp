#include "support/lock_waits.hpp"

#include <chrono>
#include <thread>

#include "store/sql_connection.hpp"

namespace signet::test {

bool sessionsWaitForLocks(const DatabaseConfig& config, int64_t sessions,
                          std::chrono::milliseconds within) {
  auto watcher = openConnection(config);
  // pg_locks covers the whole server, and tests running beside this one wait on locks of their
  // own databases; a transaction id's lock names no database, so a waiter is counted by the
  // database its session is connected to. A second waiter on one row waits on its tuple lock.
  const auto pause = std::chrono::milliseconds(50);
  for (auto waited = std::chrono::milliseconds(0); waited < within; waited += pause) {
    if (watcher
            ->queryOne("SELECT COUNT(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = "
                       "l.pid WHERE NOT l.granted AND l.locktype IN ('transactionid', 'relation', "
                       "'tuple') "
                       "AND a.datname = current_database()")
            ->i64("n") >= sessions)
      return true;
    std::this_thread::sleep_for(pause);
  }
  return false;
}

}  // namespace signet::test
