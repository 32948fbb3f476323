#include "support/lock_waits.hpp"

#include <chrono>
#include <thread>

#include "store/sql_connection.hpp"

namespace signet::test {

bool sessionsWaitForLocks(const DatabaseConfig& config, int64_t sessions) {
  auto watcher = openConnection(config);
  for (int i = 0; i < 200; ++i) {
    if (watcher
            ->queryOne("SELECT COUNT(*) AS n FROM pg_locks WHERE NOT granted AND locktype IN "
                       "('transactionid', 'relation')")
            ->i64("n") >= sessions)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace signet::test
