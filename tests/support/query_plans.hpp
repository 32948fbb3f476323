// How the store plans a statement, and whether it reads a whole table: a look-up a request makes
// (reachable without credentials, or on every signature) must go through an index, or its cost
// grows with the store.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "signet/db.hpp"

namespace signet::test {

// `sql` with each `?` replaced by the quoted value in turn (the tests' own values, no quotes in
// them): EXPLAIN plans the statement as it would run with them.
inline std::string withValues(const std::string& sql, const std::vector<std::string>& values) {
  std::string out;
  size_t next = 0;
  for (char c : sql) {
    if (c == '?' && next < values.size())
      out += "'" + values[next++] + "'";
    else
      out += c;
  }
  return out;
}

// The plan's steps, one a line. On PostgreSQL sequential scans are disabled first, so that one
// shows only where no index can serve (a small table would otherwise be scanned whatever its
// indexes).
inline std::vector<std::string> planOf(Db& db, const std::string& sql,
                                       const std::vector<std::string>& values) {
  std::vector<std::string> out;
  const std::string statement = withValues(sql, values);
  if (!db.isPostgres()) {
    for (const auto& row : db.query("EXPLAIN QUERY PLAN " + statement))
      out.push_back(row.str("detail"));
    return out;
  }
  db.exec("SET enable_seqscan = off");
  struct Reset {
    Db& db;
    ~Reset() {
      try {
        db.exec("RESET enable_seqscan");
      } catch (...) {
      }
    }
  } reset{db};
  for (const auto& row : db.query("EXPLAIN " + statement)) out.push_back(row.str("QUERY PLAN"));
  return out;
}

// The steps of `steps` (planOf's, on `db`) that read a whole table or index: SQLite's SCAN (of
// a table, not of a subquery's rows);
// PostgreSQL's Seq Scan, and an index scan with no Index Cond (read whole for its order, its rows
// filtered).
inline std::vector<std::string> fullScans(const Db& db, const std::vector<std::string>& steps) {
  std::vector<std::string> out;
  // SQLite's subqueries in FROM, whose rows (their own steps' searches) are then scanned.
  std::vector<std::string> subqueries;
  for (const auto& step : steps)
    for (const char* kind : {"CO-ROUTINE ", "MATERIALIZE "})
      if (step.rfind(kind, 0) == 0) subqueries.push_back("SCAN " + step.substr(std::strlen(kind)));
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string& step = steps[i];
    if (!db.isPostgres()) {
      if (step.rfind("SCAN ", 0) == 0 && step != "SCAN CONSTANT ROW" &&
          std::find(subqueries.begin(), subqueries.end(), step) == subqueries.end())
        out.push_back(step);
      continue;
    }
    if (step.find("Seq Scan") != std::string::npos) {
      out.push_back(step);
    } else if (step.find("Index Scan using") != std::string::npos ||
               step.find("Index Only Scan using") != std::string::npos) {
      // Its details follow, up to the next step ("->").
      bool bounded = false;
      for (size_t j = i + 1; j < steps.size() && steps[j].find("->") == std::string::npos; ++j)
        if (steps[j].find("Index Cond:") != std::string::npos) bounded = true;
      if (!bounded) out.push_back(step);
    }
  }
  return out;
}

}  // namespace signet::test
