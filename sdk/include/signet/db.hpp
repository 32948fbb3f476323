// The SQL surface handlers and plugins see. Statements use `?` placeholders and the portable
// subset of SQL that SQLite and PostgreSQL share; the store adapts placeholders per backend.
// A handler's Db is already inside the activity's transaction: it never opens its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace signet {

using SqlValue = std::variant<std::nullptr_t, int64_t, std::string>;
using SqlParams = std::vector<SqlValue>;

class Row {
 public:
  explicit Row(std::vector<SqlValue> cells) : cells_(std::move(cells)) {}
  size_t size() const { return cells_.size(); }
  bool isNull(size_t i) const { return std::holds_alternative<std::nullptr_t>(cells_.at(i)); }
  const std::string& str(size_t i) const;
  int64_t i64(size_t i) const;
  std::optional<std::string> optStr(size_t i) const;
  std::optional<int64_t> optI64(size_t i) const;

 private:
  std::vector<SqlValue> cells_;
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
