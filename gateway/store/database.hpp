// The store: a Poco Data session pool over SQLite (embedded default, WAL) or PostgreSQL,
// exposed to the rest of the gateway as signet::Db. Writes go through transaction(), which
// serializes writers inside this process and rolls back on any exception.
#pragma once

#include <Poco/Data/SessionPool.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "signet/db.hpp"

namespace signet {

enum class Backend { kSqlite, kPostgres };

struct DatabaseConfig {
  Backend backend = Backend::kSqlite;
  std::string connection;  // SQLite: file path; PostgreSQL: libpq connection string
  int maxSessions = 16;
};

class Database {
 public:
  explicit Database(const DatabaseConfig& config);
  ~Database();
  Backend backend() const { return config_.backend; }

  // Runs fn inside one transaction on one pooled session.
  void transaction(const std::function<void(Db&)>& fn);
  // Runs fn on a pooled session outside any explicit transaction (reads).
  void read(const std::function<void(Db&)>& fn);

  // Applies the migrations of `module` that the database has not recorded yet, each in its
  // own transaction. Refuses a list whose versions are not strictly increasing.
  void migrate(const std::string& module, const std::vector<Migration>& migrations);
  // Versions recorded for a module.
  std::vector<int> appliedMigrations(const std::string& module);

 private:
  class PooledDb;
  DatabaseConfig config_;
  std::unique_ptr<Poco::Data::SessionPool> pool_;
  std::mutex writeMutex_;
};

}  // namespace signet
