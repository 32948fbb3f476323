// SQLite through its C API, with a per-connection cache of prepared statements.
#include <sqlite3.h>

#include <cctype>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "signet/crypto.hpp"
#include "store/given_texts.hpp"
#include "store/sql_connection.hpp"
#include "store/sqlite_checkpointer.hpp"

namespace signet {

namespace {

bool blank(const char* s) {
  for (; s && *s; ++s)
    if (!std::isspace(static_cast<unsigned char>(*s))) return false;
  return true;
}

// SQLite counts every allocation of every connection under one process-wide mutex unless told
// not to (SQLITE_CONFIG_MEMSTATUS, on by default). With a pool of connections on several
// threads, that mutex made a fifth of the gateway's futex calls when signing. Nothing here
// reads those counts (sqlite3_memory_used, a soft heap limit). SQLite takes the setting only
// before it initializes, which the first open does.
void withoutMemoryStatistics() {
  static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)configured;  // SQLITE_MISUSE if something initialized SQLite before: only slower
}

// sha256_hex(X): the lowercase hex SHA-256 of X as UTF-8 text (as a row's text is read), NULL
// for NULL. What PostgreSQL writes as encode(sha256(convert_to(X, 'UTF8')), 'hex'), so that a
// statement or a trigger can hash on either store: the activity log's triggers make each leaf
// with it (gateway/log/activity_log.hpp).
void sha256Hex(sqlite3_context* context, int, sqlite3_value** values) {
  if (sqlite3_value_type(values[0]) == SQLITE_NULL) return sqlite3_result_null(context);
  // Text, then its size: the order SQLite's documentation asks for.
  const auto* text = sqlite3_value_text(values[0]);
  const auto size = static_cast<size_t>(sqlite3_value_bytes(values[0]));
  try {  // nothing may unwind through SQLite's C frames
    std::string hex = crypto::toHex(crypto::sha256(text, size));
    sqlite3_result_text(context, hex.data(), static_cast<int>(hex.size()), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
    sqlite3_result_error(context, e.what(), -1);
  }
}

// signet_given(NAME): the text this thread gave under NAME (store/given_texts.hpp), NULL when
// none is. Not deterministic: what it returns depends on who asks, and when.
void given(sqlite3_context* context, int, sqlite3_value** values) {
  const auto* name = reinterpret_cast<const char*>(sqlite3_value_text(values[0]));
  const auto size = static_cast<size_t>(sqlite3_value_bytes(values[0]));
  const std::string* text = name ? GivenTexts::find(std::string_view(name, size)) : nullptr;
  if (!text) return sqlite3_result_null(context);
  // Static: the text outlives the statement's use of it (the GivenTexts outlives the step).
  sqlite3_result_text(context, text->data(), static_cast<int>(text->size()), SQLITE_STATIC);
}

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(const std::string& path, SqliteCheckpointer* checkpointer) {
    withoutMemoryStatistics();
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw DatabaseError("cannot open " + path + ": " + why);
    }
    // Another connection (or the CLI) holding the write lock is waited for, not failed on.
    sqlite3_busy_timeout(db_, 5000);
    for (const auto& [name, function, flags] :
         {std::tuple{"sha256_hex", &sha256Hex, SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS},
          std::tuple{"signet_given", &given, 0}})
      if (sqlite3_create_function_v2(db_, name, 1, SQLITE_UTF8 | flags, nullptr, function, nullptr,
                                     nullptr, nullptr) != SQLITE_OK) {
        std::string why = sqlite3_errmsg(db_);
        sqlite3_close(db_);
        throw DatabaseError(std::string("cannot define ") + name + " on " + path + ": " + why);
      }
    exec("PRAGMA journal_mode=WAL", {});  // readers run beside the writer; persists in the file
    exec("PRAGMA synchronous=FULL", {});  // a COMMIT returns once the WAL is synced
    // Each request of a group commit runs in a savepoint, whose sub-journal (the pages as they
    // were before it) SQLite spills to a temporary file past 64 KiB: a file created, written
    // and deleted in every batch of a few requests. In memory it is only as large as a batch's
    // pages, and it is never needed after a crash (the WAL is: durability is unchanged). Sorts
    // without an index stay in memory too; they sort what the query returns, which is in memory
    // as rows anyway.
    exec("PRAGMA temp_store=MEMORY", {});
    // What a write removes or replaces is overwritten where that costs no extra I/O, so that a
    // secret sealed in place of a value (a stored verification token) does not linger in a free
    // cell of the file (docs/security.md).
    exec("PRAGMA secure_delete=FAST", {});
    if (checkpointer) checkpointer->attach(db_);
  }

  ~SqliteConnection() override {
    for (auto& [sql, st] : cache_) sqlite3_finalize(st);
    sqlite3_close(db_);
  }

  void begin() override { exec("BEGIN IMMEDIATE", {}); }
  // A deferred transaction takes its snapshot at the first read. Writes are refused here,
  // statement by statement: PRAGMA query_only would do it too, but setting it expires every
  // prepared statement of the connection.
  void beginSnapshot() override {
    exec("BEGIN", {});
    readOnly_ = true;
  }
  void endSnapshot() override {
    readOnly_ = false;
    if (!sqlite3_get_autocommit(db_)) exec("ROLLBACK", {});
  }
  // A file does not hang up; a connection left inside a transaction is not lent again.
  bool healthy() const override { return sqlite3_get_autocommit(db_) != 0; }
  size_t preparedStatements() const override { return cache_.size(); }

  size_t exec(const std::string& sql, const SqlParams& params) override {
    return run(sql, params, nullptr) ? static_cast<size_t>(sqlite3_changes(db_)) : 0;
  }

  std::vector<Row> query(const std::string& sql, const SqlParams& params) override {
    std::vector<Row> rows;
    run(sql, params, &rows);
    return rows;
  }

 private:
  // Runs `sql`, collecting its rows into `rows` when given. Returns whether it was one
  // statement that writes, whose changed rows sqlite3_changes then counts.
  bool run(const std::string& sql, const SqlParams& params, std::vector<Row>* rows) {
    sqlite3_stmt* st = statement(sql);
    if (!st) {
      runUncached(sql, params, rows);
      return false;
    }
    struct Reset {  // leaves the statement reusable whatever happens
      sqlite3_stmt* st;
      ~Reset() {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
      }
    } reset{st};
    bool writes = !sqlite3_stmt_readonly(st);
    if (readOnly_ && writes) throw DatabaseError("a write inside a read-only snapshot: " + sql);
    bind(st, sql, params);
    step(st, sql, rows);
    return writes;
  }

  // The cached statement for `sql`, or null when the text holds several statements (a
  // migration's), which run once, uncached.
  sqlite3_stmt* statement(const std::string& sql) {
    if (auto it = cache_.find(sql); it != cache_.end()) return it->second;
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size() + 1),
                           SQLITE_PREPARE_PERSISTENT, &st, &tail) != SQLITE_OK)
      fail("cannot prepare", sql);
    if (!blank(tail)) {
      sqlite3_finalize(st);
      return nullptr;
    }
    if (cache_.size() >= kMaxPreparedStatements) {
      for (auto& [text, old] : cache_) sqlite3_finalize(old);
      cache_.clear();
    }
    cache_.emplace(sql, st);
    return st;
  }

  void runUncached(const std::string& sql, const SqlParams& params, std::vector<Row>* rows) {
    if (readOnly_) throw DatabaseError("several statements inside a read-only snapshot: " + sql);
    if (!params.empty()) throw DatabaseError("parameters given to several statements: " + sql);
    const char* next = sql.c_str();
    while (!blank(next)) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db_, next, -1, &st, &next) != SQLITE_OK) fail("cannot prepare", sql);
      if (!st) break;  // only a comment was left
      try {
        step(st, sql, rows);
      } catch (...) {
        sqlite3_finalize(st);
        throw;
      }
      sqlite3_finalize(st);
    }
  }

  void bind(sqlite3_stmt* st, const std::string& sql, const SqlParams& params) {
    if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(st))
      throw DatabaseError(std::to_string(params.size()) + " parameters given to a statement with " +
                          std::to_string(sqlite3_bind_parameter_count(st)) + ": " + sql);
    for (size_t i = 0; i < params.size(); ++i) {
      int at = static_cast<int>(i + 1), rc;
      if (auto* s = std::get_if<std::string>(&params[i]))
        rc = sqlite3_bind_text(st, at, s->data(), static_cast<int>(s->size()), SQLITE_STATIC);
      else if (auto* n = std::get_if<int64_t>(&params[i]))
        rc = sqlite3_bind_int64(st, at, *n);
      else
        rc = sqlite3_bind_null(st, at);
      if (rc != SQLITE_OK) fail("cannot bind parameter " + std::to_string(at) + " of", sql);
    }
  }

  void step(sqlite3_stmt* st, const std::string& sql, std::vector<Row>* rows) {
    Row::Columns names;
    for (;;) {
      int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) fail("cannot run", sql);
      if (!rows) continue;
      int columns = sqlite3_column_count(st);
      if (!names) {  // once per answer, shared by its rows
        auto list = std::make_shared<std::vector<std::string>>();
        for (int c = 0; c < columns; ++c) list->emplace_back(sqlite3_column_name(st, c));
        names = std::move(list);
      }
      std::vector<SqlValue> cells;
      cells.reserve(columns);
      for (int c = 0; c < columns; ++c) {
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_NULL:
            cells.emplace_back(nullptr);
            break;
          case SQLITE_INTEGER:
            cells.emplace_back(static_cast<int64_t>(sqlite3_column_int64(st, c)));
            break;
          default: {  // text, and the text form of a real or a blob
            auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
            cells.emplace_back(std::string(text, sqlite3_column_bytes(st, c)));
          }
        }
      }
      rows->emplace_back(std::move(cells), names);
    }
  }

  [[noreturn]] void fail(const std::string& what, const std::string& sql) {
    std::string message = "SQLite " + what + " [" + sql + "]: " + sqlite3_errmsg(db_);
    // Another process (a CLI command, a backup) held the lock past the busy timeout.
    int code = sqlite3_errcode(db_) & 0xff;
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED) throw StoreUnavailable(message);
    throw DatabaseError(message);
  }

  sqlite3* db_ = nullptr;
  bool readOnly_ = false;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace

std::unique_ptr<SqlConnection> openSqlite(const std::string& path,
                                          SqliteCheckpointer* checkpointer) {
  return std::make_unique<SqliteConnection>(path, checkpointer);
}

}  // namespace signet
