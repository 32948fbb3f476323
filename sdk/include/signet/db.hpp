// The SQL surface handlers and plugins see. Statements use `?` placeholders and the portable
// subset of SQL that SQLite and PostgreSQL share; the store adapts placeholders per backend.
// A handler's Db is already inside the activity's transaction: it never opens its own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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

class Db {
 public:
  virtual ~Db() = default;
  // Runs a statement; returns the number of rows it changed.
  virtual size_t exec(const std::string& sql, const SqlParams& params = {}) = 0;
  virtual std::vector<Row> query(const std::string& sql, const SqlParams& params = {}) = 0;
  // Whether the store is PostgreSQL: for the few statements the portable subset lacks, such
  // as claiming rows that several gateways share (FOR UPDATE SKIP LOCKED).
  virtual bool isPostgres() const { return false; }
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
