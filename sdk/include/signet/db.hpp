// The SQL surface handlers and plugins see. Statements use `?` placeholders and the portable
// subset of SQL that SQLite and PostgreSQL share; the store adapts placeholders per backend.
// A handler's Db is already inside the activity's transaction: it never opens its own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace signet {

using SqlValue = std::variant<std::nullptr_t, int64_t, std::string>;
using SqlParams = std::vector<SqlValue>;

// One row of a query's answer. Cells are read by the name of their column in the SELECT list
// (its alias, for an expression: `COUNT(*) AS n`), never by position, so that a reader does not
// silently read another column when the list changes. Names are lower case: PostgreSQL folds
// unquoted names and aliases to it. A name the answer does not have is a std::out_of_range
// naming it and the columns there are.
class Row {
 public:
  using Columns = std::shared_ptr<const std::vector<std::string>>;
  Row(std::vector<SqlValue> cells, Columns columns)
      : cells_(std::move(cells)), columns_(std::move(columns)) {}
  bool has(std::string_view column) const;
  bool isNull(std::string_view column) const;
  const std::string& str(std::string_view column) const;  // text; logic_error when not
  int64_t i64(std::string_view column) const;             // an integer (or its text)
  std::optional<std::string> optStr(std::string_view column) const;
  std::optional<int64_t> optI64(std::string_view column) const;
  // Every cell, in the SELECT list's order, and the columns' names: for code that treats any
  // table alike (a store's fingerprint), not for reading a column it knows.
  const std::vector<SqlValue>& cells() const { return cells_; }
  const std::vector<std::string>& columns() const;

 private:
  const SqlValue& cell(std::string_view column) const;
  std::vector<SqlValue> cells_;
  Columns columns_;
};

// A failure the database reported (a constraint, a lost connection, a full disk). Not a
// signet::Error: the pipeline treats it as an internal error, logs it and answers without it.
class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The rows of a query sent ahead of when they are needed (Db::queryAhead). Valid in
// the transaction that sent it.
class RowsAhead {
 public:
  explicit RowsAhead(std::vector<Row> rows) : rows_(std::move(rows)) {}
  explicit RowsAhead(std::function<void()> send) : send_(std::move(send)) {}
  // The answer; when it has not come yet, what waits is sent now, in one round trip.
  const std::vector<Row>& rows() {
    if (!rows_ && send_) send_();
    if (!rows_)
      throw DatabaseError("a query sent ahead was dropped, unanswered, with its transaction");
    return *rows_;
  }
  void answer(std::vector<Row> rows) { rows_ = std::move(rows); }
  // It will not be sent any more (its transaction was rolled back, or a failure before it ended
  // the pipeline): rows() then says so, instead of sending whatever the connection holds by then.
  void forget() { send_ = nullptr; }

 private:
  std::optional<std::vector<Row>> rows_;
  std::function<void()> send_;
};

class Db {
 public:
  virtual ~Db() = default;
  // Runs a statement; returns the number of rows it changed.
  virtual size_t exec(const std::string& sql, const SqlParams& params = {}) = 0;
  virtual std::vector<Row> query(const std::string& sql, const SqlParams& params = {}) = 0;
  // Whether the store is PostgreSQL: for the few statements the portable subset lacks, such
  // as claiming rows that several gateways share (FOR UPDATE SKIP LOCKED).
  virtual bool isPostgres() const { return false; }
  // A read whose answer is wanted later in the transaction. On PostgreSQL inside a transaction or
  // a snapshot, once the connection has prepared it (its first use there runs it at once), it
  // waits, as the store's unanswered writes do, and goes with the next statement: a read that
  // costs no round trip of its own when another statement follows it anyway. Elsewhere it runs
  // at once. Its failure fails the statement it goes with.
  virtual std::shared_ptr<RowsAhead> queryAhead(const std::string& sql, const SqlParams& params) {
    return std::make_shared<RowsAhead>(query(sql, params));
  }
  std::optional<Row> queryOne(const std::string& sql, const SqlParams& params = {}) {
    auto rows = query(sql, params);
    if (rows.empty()) return std::nullopt;
    return std::move(rows.front());
  }
};

// Numbered schema changes of one module (core or a plugin); applied once, in order, and
// recorded in the database. Statements are in the subset SQLite and PostgreSQL share; one that
// starts with "sqlite: " or "postgresql: " runs on that store only (triggers, say, whose
// syntax differs), without its prefix.
struct Migration {
  int version = 0;
  std::string description;
  std::vector<std::string> statements;
};

}  // namespace signet
