#include "support/store_fingerprint.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet::test {

namespace {
// A cell as text that tells null, integer and text apart.
std::string cellText(const SqlValue& cell) {
  if (std::holds_alternative<std::nullptr_t>(cell)) return "null";
  if (const auto* text = std::get_if<std::string>(&cell))
    return "s" + std::to_string(text->size()) + ":" + *text;
  return "i" + std::to_string(std::get<int64_t>(cell));  // an integer
}
}  // namespace

StoreFingerprint fingerprintOfStore(TestGateway& gw, const std::set<std::string>& except) {
  StoreFingerprint out;
  gw.write([&](Db& db) {
    auto tables = db.query(db.isPostgres() ? "SELECT tablename AS name FROM pg_tables WHERE "
                                             "schemaname = current_schema()"
                                           : "SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%'");
    for (const auto& t : tables) {
      const std::string& table = t.str("name");
      if (except.count(table) || kWrittenOnItsOwnClock.count(table)) continue;
      std::vector<std::string> rows;
      for (const auto& row : db.query("SELECT * FROM " + table)) {
        std::string text;
        for (const auto& cell : row.cells()) text += cellText(cell) + "|";
        rows.push_back(std::move(text));
      }
      std::sort(rows.begin(), rows.end());  // tables have no order of their own
      std::string all;
      for (const auto& r : rows) all += r + "\n";
      out[table] = std::to_string(rows.size()) + " rows " + crypto::toHex(crypto::sha256(all));
    }
  });
  return out;
}

std::string changedTables(const StoreFingerprint& before, const StoreFingerprint& after) {
  std::string changed;
  auto note = [&](const std::string& table, const std::string& was, const std::string& is) {
    changed += (changed.empty() ? "" : "; ") + table + " (" + was + " -> " + is + ")";
  };
  for (const auto& [table, digest] : before) {
    auto it = after.find(table);
    if (it == after.end())
      note(table, digest, "gone");
    else if (it->second != digest)
      note(table, digest, it->second);
  }
  for (const auto& [table, digest] : after)
    if (!before.count(table)) note(table, "absent", digest);
  return changed;
}

}  // namespace signet::test
