#include "signet/pagination.hpp"

#include <algorithm>

#include "signet/error.hpp"

namespace signet {

Pagination parsePagination(const json::Object& body) {
  Pagination p;
  auto options = json::optionalObject(body, "paginationOptions", "");
  if (!options) return p;
  if (auto limit = json::optionalInt64String(options, "limit", "paginationOptions")) {
    if (*limit < 1 || *limit > 100)
      throw invalidArgument("invalid field paginationOptions.limit: " + std::to_string(*limit) +
                            " is not between 1 and 100");
    p.limit = static_cast<size_t>(*limit);
  }
  p.before = json::optionalString(options, "before", "paginationOptions");
  p.after = json::optionalString(options, "after", "paginationOptions");
  return p;
}

bool appendPage(std::string& sql, SqlParams& params, const Pagination& page, bool newestFirst,
                const std::function<int64_t(const std::string&)>& cursorTime) {
  // "Later in list order" is older when newest first, newer otherwise.
  const char* later = newestFirst ? "<" : ">";
  const char* earlier = newestFirst ? ">" : "<";
  if (page.after) {
    int64_t at = cursorTime(*page.after);
    sql += std::string(" AND (created_at_ms ") + later + " ? OR (created_at_ms = ? AND id " +
           later + " ?))";
    params.insert(params.end(), {at, at, *page.after});
  }
  bool reverse = false;
  if (page.before) {
    int64_t at = cursorTime(*page.before);
    sql += std::string(" AND (created_at_ms ") + earlier + " ? OR (created_at_ms = ? AND id " +
           earlier + " ?))";
    params.insert(params.end(), {at, at, *page.before});
    reverse = !page.after;  // take the nearest ones in front of the cursor, then flip
  }
  bool descending = newestFirst != reverse;
  sql +=
      descending ? " ORDER BY created_at_ms DESC, id DESC" : " ORDER BY created_at_ms ASC, id ASC";
  sql += " LIMIT " + std::to_string(page.limit);
  return reverse;
}

std::vector<Row> queryPage(Db& db, std::string sql, SqlParams params, const Pagination& page,
                           bool newestFirst,
                           const std::function<int64_t(const std::string&)>& cursorTime) {
  bool reversed = appendPage(sql, params, page, newestFirst, cursorTime);
  auto rows = db.query(sql, params);
  if (reversed) std::reverse(rows.begin(), rows.end());
  return rows;
}

std::function<int64_t(const std::string&)> cursorIn(Db& db, const std::string& table,
                                                    const std::string& organizationId,
                                                    const std::string& what) {
  return [&db, table, organizationId, what](const std::string& id) {
    auto row =
        db.queryOne("SELECT created_at_ms FROM " + table + " WHERE organization_id = ? AND id = ?",
                    {organizationId, id});
    if (!row)
      throw invalidArgument("invalid field paginationOptions: cursor " + id + " is not " + what +
                            " of organization " + organizationId);
    return row->i64("created_at_ms");
  };
}

}  // namespace signet
