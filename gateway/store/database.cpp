#include "database.hpp"

#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/RecordSet.h>
#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/Statement.h>
#include <Poco/Nullable.h>

#include <deque>

#include "signet/error.hpp"

namespace signet {

using Poco::Data::Keywords::use;

namespace {
void registerConnectors() {
  static std::once_flag once;
  std::call_once(once, [] {
    Poco::Data::SQLite::Connector::registerConnector();
    Poco::Data::PostgreSQL::Connector::registerConnector();
  });
}

// PostgreSQL's libpq wants $1, $2 ...; rewrite `?` outside quoted text.
std::string numberPlaceholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$' + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

SqlValue toSqlValue(const Poco::Dynamic::Var& v) {
  if (v.isEmpty()) return nullptr;
  if (v.isInteger() && !v.isString()) return v.convert<int64_t>();
  return v.convert<std::string>();
}
}  // namespace

// One pooled session seen as signet::Db.
class Database::PooledDb : public Db {
 public:
  PooledDb(Poco::Data::Session session, Backend backend)
      : session_(std::move(session)), backend_(backend) {}

  size_t exec(const std::string& sql, const SqlParams& params = {}) override {
    Poco::Data::Statement st(session_);
    Bound bound;
    prepare(st, sql, params, bound);
    return st.execute();
  }

  std::vector<Row> query(const std::string& sql, const SqlParams& params = {}) override {
    Poco::Data::Statement st(session_);
    Bound bound;
    prepare(st, sql, params, bound);
    st.execute();
    Poco::Data::RecordSet rs(st);
    std::vector<Row> rows;
    rows.reserve(rs.rowCount());
    for (size_t r = 0; r < rs.rowCount(); ++r) {
      std::vector<SqlValue> cells;
      cells.reserve(rs.columnCount());
      for (size_t c = 0; c < rs.columnCount(); ++c) cells.push_back(toSqlValue(rs.value(c, r)));
      rows.emplace_back(std::move(cells));
    }
    return rows;
  }

  Poco::Data::Session& session() { return session_; }

 private:
  // Bound values must outlive execution: Poco binds by reference.
  struct Bound {
    std::deque<Poco::Nullable<std::string>> strings;
    std::deque<Poco::Nullable<Poco::Int64>> ints;
  };

  void prepare(Poco::Data::Statement& st, const std::string& sql, const SqlParams& params,
               Bound& bound) {
    st << (backend_ == Backend::kPostgres ? numberPlaceholders(sql) : sql);
    for (const auto& p : params) {
      if (auto* s = std::get_if<std::string>(&p)) {
        st, use(bound.strings.emplace_back(*s));
      } else if (auto* i = std::get_if<int64_t>(&p)) {
        st, use(bound.ints.emplace_back(static_cast<Poco::Int64>(*i)));
      } else {
        st, use(bound.strings.emplace_back());
      }
    }
  }

  Poco::Data::Session session_;
  Backend backend_;
};

Database::Database(const DatabaseConfig& config) : config_(config) {
  registerConnectors();
  const char* connector = config.backend == Backend::kSqlite ? "SQLite" : "PostgreSQL";
  try {
    pool_ = std::make_unique<Poco::Data::SessionPool>(connector, config.connection, 1,
                                                      config.maxSessions, 60);
    if (config.backend == Backend::kSqlite) {
      // WAL lets readers run beside the single writer; the mode persists in the file.
      Poco::Data::Session s = pool_->get();
      Poco::Data::Statement(s) << "PRAGMA journal_mode=WAL", Poco::Data::Keywords::now;
    }
  } catch (const Poco::Exception& e) {
    throw Error(Code::kUnavailable,
                std::string("cannot open the ") + connector + " database: " + e.displayText());
  }
}

Database::~Database() = default;

void Database::read(const std::function<void(Db&)>& fn) {
  PooledDb db(pool_->get(), config_.backend);
  if (config_.backend == Backend::kSqlite) db.exec("PRAGMA busy_timeout = 5000");
  fn(db);
}

void Database::transaction(const std::function<void(Db&)>& fn) {
  std::lock_guard lock(writeMutex_);
  PooledDb db(pool_->get(), config_.backend);
  if (config_.backend == Backend::kSqlite) {
    db.exec("PRAGMA busy_timeout = 5000");
    // IMMEDIATE takes the write lock up front, so another process (the CLI beside a running
    // server) waits on busy_timeout instead of failing on a lock upgrade.
    db.exec("BEGIN IMMEDIATE");
  } else {
    db.session().begin();
  }
  try {
    fn(db);
    if (config_.backend == Backend::kSqlite)
      db.exec("COMMIT");
    else
      db.session().commit();
  } catch (...) {
    try {
      if (config_.backend == Backend::kSqlite)
        db.exec("ROLLBACK");
      else
        db.session().rollback();
    } catch (...) {
      // The original error matters more than a failed rollback; the session is discarded.
    }
    throw;
  }
}

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
      out.push_back(static_cast<int>(row.i64(0)));
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
      for (const auto& sql : m.statements) {
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
