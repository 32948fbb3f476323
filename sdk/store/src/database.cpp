#include "store/database.hpp"

#include <algorithm>
#include <chrono>
#include <string_view>

#include "signet/error.hpp"

namespace signet {

std::unique_ptr<SqlConnection> openConnection(const DatabaseConfig& config,
                                              SqliteCheckpointer* checkpointer) {
  return config.backend == Backend::kSqlite ? openSqlite(config.connection, checkpointer)
                                            : openPostgres(config.connection);
}

// How both pools open their connections.
static ConnectionPool::Opener opener(const DatabaseConfig& config,
                                     SqliteCheckpointer* checkpointer) {
  return [config, checkpointer] { return openConnection(config, checkpointer); };
}

// SQLite has one writer, so one lane; PostgreSQL runs several batches at once when asked.
static int writeLanes(const DatabaseConfig& config) {
  return config.backend == Backend::kSqlite ? 1 : std::max(1, config.writeLanes);
}

Database::Database(const DatabaseConfig& config)
    : config_(config),
      checkpointer_(config.backend == Backend::kSqlite
                        ? std::make_unique<SqliteCheckpointer>(config.connection)
                        : nullptr),
      pool_(opener(config, checkpointer_.get()),
            static_cast<size_t>(std::max(2, config.maxSessions))),
      writers_(
          [open = opener(config, checkpointer_.get()), setup = writerSetup_] {
            auto c = open();
            if (*setup) (*setup)(*c);
            return c;
          },
          static_cast<size_t>(writeLanes(config))),
      commits_(writers_, writeLanes(config)) {
  const char* name = config.backend == Backend::kSqlite ? "SQLite" : "PostgreSQL";
  try {
    pool_.acquire();  // fails now, with the cause, rather than on the first request
  } catch (const std::exception& e) {
    throw Error(Code::kUnavailable,
                std::string("cannot open the ") + name + " database: " + e.what());
  }
}

Database::~Database() = default;

void Database::setWriteHooks(std::function<void(Db&)> setup,
                             GroupCommit::BeforeCommit beforeCommit) {
  *writerSetup_ = std::move(setup);
  writers_.closeIdle();
  commits_.setBeforeCommit(std::move(beforeCommit));
  // A batch that failed as a whole may have rolled back the session's setup, set again inside it.
  commits_.setAfterRollback([setup = writerSetup_](Db& db) {
    if (*setup) (*setup)(db);
  });
}

void Database::read(const std::function<void(Db&)>& fn) {
  try {
    auto lease = pool_.acquire();
    fn(*lease);
  } catch (const StoreUnavailable&) {
    // A read changes nothing, so it can run again: the lost connection went back to the pool
    // unhealthy and was closed, and the pool lends a live one or opens another. A store that
    // cannot be reached at all fails this second time too.
    auto lease = pool_.acquire();
    fn(*lease);
  }
}

void Database::snapshot(const std::function<void(Db&)>& fn) {
  auto lease = pool_.acquire();
  lease->beginSnapshot();
  try {
    fn(*lease);
  } catch (...) {
    try {
      lease->endSnapshot();
    } catch (...) {
      // The connection is left inside its transaction, so the pool closes it.
    }
    throw;
  }
  lease->endSnapshot();
}

void Database::transaction(const std::function<void(Db&)>& fn) {
  commits_.run(fn);
}

void Database::transactionThen(std::function<void(Db&)> fn,
                               std::function<void(std::exception_ptr)> then) {
  commits_.post(std::move(fn), std::move(then));
}

// The prefixes of statements one store runs and the other skips (signet/db.hpp, Migration).
static constexpr const char* kSqliteOnly = "sqlite: ";
static constexpr const char* kPostgresOnly = "postgresql: ";

static const char* kMigrationsTable =
    "CREATE TABLE IF NOT EXISTS signet_migrations (module TEXT NOT NULL, version INTEGER NOT "
    "NULL, description TEXT NOT NULL, applied_at_ms BIGINT NOT NULL, PRIMARY KEY (module, "
    "version))";

std::vector<int> Database::appliedMigrations(const std::string& module) {
  std::vector<int> out;
  transaction([&](Db& db) {
    db.exec(kMigrationsTable);
    for (const auto& row : db.query(
             "SELECT version FROM signet_migrations WHERE module = ? ORDER BY version", {module}))
      out.push_back(static_cast<int>(row.i64("version")));
  });
  return out;
}

void Database::migrate(const std::string& module, const std::vector<Migration>& migrations) {
  for (size_t i = 1; i < migrations.size(); ++i)
    if (migrations[i].version <= migrations[i - 1].version)
      throw internalError("migrations of module '" + module +
                          "' are not in strictly increasing version order");
  for (const auto& m : migrations) {
    transaction([&](Db& db) {
      if (config_.backend == Backend::kPostgres)  // several gateways may start at once
        db.query("SELECT pg_advisory_xact_lock(7319)");
      db.exec(kMigrationsTable);
      if (db.queryOne("SELECT 1 FROM signet_migrations WHERE module = ? AND version = ?",
                      {module, int64_t{m.version}}))
        return;
      for (const auto& statement : m.statements) {
        std::string sql = statement;
        bool postgres = config_.backend == Backend::kPostgres;
        if (sql.rfind(kSqliteOnly, 0) == 0) {
          if (postgres) continue;
          sql.erase(0, std::string_view(kSqliteOnly).size());
        } else if (sql.rfind(kPostgresOnly, 0) == 0) {
          if (!postgres) continue;
          sql.erase(0, std::string_view(kPostgresOnly).size());
        }
        try {
          db.exec(sql);
        } catch (const std::exception& e) {
          // Poco's messages ("Invalid SQL statement") do not say which one.
          throw internalError("migration " + std::to_string(m.version) + " of module '" + module +
                              "' (" + m.description + ") failed: " + e.what() + " in: " + sql);
        }
      }
      auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
      db.exec(
          "INSERT INTO signet_migrations (module, version, description, applied_at_ms) "
          "VALUES (?, ?, ?, ?)",
          {module, int64_t{m.version}, m.description, int64_t{now}});
    });
  }
}

}  // namespace signet
