#include "support/store_fingerprint.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet::test {

namespace {
// A cell as text that tells null, integer and text apart.
std::string cellText(const Row& row, size_t i) {
  if (row.isNull(i)) return "null";
  try {
    const std::string& text = row.str(i);
    return "s" + std::to_string(text.size()) + ":" + text;
  } catch (const std::logic_error&) {  // an integer
    return "i" + std::to_string(row.i64(i));
  }
}
}  // namespace

StoreFingerprint fingerprintOfStore(TestGateway& gw, const std::set<std::string>& except) {
  StoreFingerprint out;
  gw.write([&](Db& db) {
    auto tables = db.query(db.isPostgres() ? "SELECT tablename FROM pg_tables WHERE schemaname = "
                                             "current_schema()"
                                           : "SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT LIKE 'sqlite_%'");
    for (const auto& t : tables) {
      const std::string& table = t.str(0);
      if (except.count(table)) continue;
      std::vector<std::string> rows;
      for (const auto& row : db.query("SELECT * FROM " + table)) {
        std::string text;
        for (size_t i = 0; i < row.size(); ++i) text += cellText(row, i) + "|";
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
