// Cursor pagination as the coordinator API has it: paginationOptions {limit "1".."100"
// (default 10), before, after}, where the cursors are ids. Lists are ordered by
// (created_at_ms, id); `after` continues past the cursor in list order and `before` returns
// the items just in front of it, still in list order.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "signet/db.hpp"
#include "signet/json.hpp"

namespace signet {

struct Pagination {
  size_t limit = 10;
  std::optional<std::string> before;
  std::optional<std::string> after;
};

// Reads body.paginationOptions; InvalidArgument naming the field.
Pagination parsePagination(const json::Object& body);

// Appends the cursor conditions, ORDER BY and LIMIT to `sql` for a list ordered by
// (created_at_ms, id), newest first when `newestFirst`. `cursorTime` gives a cursor id's
// created_at_ms (and throws for an id that is not in the list). Returns true when the rows
// come back reversed and must be flipped to list order.
bool appendPage(std::string& sql, SqlParams& params, const Pagination& page, bool newestFirst,
                const std::function<int64_t(const std::string&)>& cursorTime);

// The page of `sql`'s rows in list order: appendPage, the query, and the flip when the rows came
// back reversed. `sql` ends in its WHERE clause (appendPage adds " AND ..." to it).
std::vector<Row> queryPage(Db& db, std::string sql, SqlParams params, const Pagination& page,
                           bool newestFirst,
                           const std::function<int64_t(const std::string&)>& cursorTime);

// appendPage's `cursorTime` for a list of rows of `table` that belong to one organization (its
// organization_id column): a cursor that is not one of them is refused naming
// paginationOptions, as "cursor ID is not `what` of organization ORG".
std::function<int64_t(const std::string&)> cursorIn(Db& db, const std::string& table,
                                                    const std::string& organizationId,
                                                    const std::string& what);

}  // namespace signet
