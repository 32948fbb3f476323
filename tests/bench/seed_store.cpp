// Grows a gateway's store quickly, without HTTP, for the benchmarks that ask how the gateway
// behaves once its store is large.
//
//   seed_store DATADIR activities N
//       N more activities, copies of the newest stored one with ids, fingerprints and times of
//       their own, in transactions of 10,000.
//   seed_store DATADIR tenants ORGANIZATIONS ACCOUNTS
//       ORGANIZATIONS more organizations, each a copy of the newest one with its users and API
//       keys left out, and ACCOUNTS wallet accounts spread over one wallet in each.
//
// Rows are copied from real ones made through the API, column for column (the column list is
// read from the database), so the copies have the shape and size the gateway writes.
#include <algorithm>
#include <iostream>
#include <map>

#include "config/config.hpp"
#include "signet/crypto.hpp"
#include "signet/encoding.hpp"
#include "store/database.hpp"

using namespace signet;

namespace {

std::vector<std::string> columnsOf(Db& db, Backend backend, const std::string& table) {
  std::vector<std::string> out;
  auto rows = backend == Backend::kSqlite
                  ? db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", {table})
                  : db.query(
                        "SELECT column_name AS name FROM information_schema.columns WHERE "
                        "table_name = ? "
                        "ORDER BY ordinal_position",
                        {table});
  for (const auto& r : rows) out.push_back(r.str("name"));
  if (out.empty()) throw std::runtime_error("no table " + table);
  return out;
}

// INSERT INTO table SELECT ... FROM table WHERE key = ?, with `overrides` bound in place of
// their columns; the statement's parameters are the overrides' values (in column order) and
// then the key.
struct Copier {
  std::string sql;
  std::vector<std::string> overridden;  // in the order their values are bound
};

Copier copier(Db& db, Backend backend, const std::string& table, const std::string& key,
              const std::vector<std::string>& overrides) {
  Copier c;
  std::string columns, values;
  for (const auto& col : columnsOf(db, backend, table)) {
    columns += (columns.empty() ? "" : ", ") + col;
    bool over = std::find(overrides.begin(), overrides.end(), col) != overrides.end();
    values += (values.empty() ? "" : ", ") + (over ? std::string("?") : col);
    if (over) c.overridden.push_back(col);
  }
  c.sql = "INSERT INTO " + table + " (" + columns + ") SELECT " + values + " FROM " + table +
          " WHERE " + key + " = ?";
  return c;
}

// Runs `copy` with the overrides' values given by name.
void run(Db& db, const Copier& copy, const std::map<std::string, SqlValue>& values,
         const std::string& key) {
  SqlParams params;
  for (const auto& col : copy.overridden) params.push_back(values.at(col));
  params.push_back(key);
  db.exec(copy.sql, params);
}

std::string sha256Hex(const std::string& text) {
  auto d = crypto::sha256(text);
  return toHex(d.data(), d.size());
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void seedActivities(Database& store, Backend backend, int64_t n) {
  std::string templateId;
  Copier copy;
  store.read([&](Db& db) {
    auto row = db.queryOne("SELECT id FROM activities ORDER BY created_at_ms DESC LIMIT 1");
    if (!row) throw std::runtime_error("no activity to copy: submit one first");
    templateId = row->str("id");
    copy = copier(db, backend, "activities", "id",
                  {"id", "fingerprint", "created_at_ms", "updated_at_ms"});
  });
  // Older than anything the benchmark makes afterwards, spread over the past.
  int64_t t = nowMs() - n;
  for (int64_t done = 0; done < n;) {
    int64_t batch = std::min<int64_t>(10000, n - done);
    store.transaction([&](Db& db) {
      for (int64_t i = 0; i < batch; ++i, ++t) {
        std::string id = crypto::uuidV7(t);
        run(db, copy,
            {{"id", id},
             {"fingerprint", "sha256:seed-" + id},
             {"created_at_ms", t},
             {"updated_at_ms", t}},
            templateId);
      }
    });
    done += batch;
  }
}

void seedTenants(Database& store, Backend backend, int64_t organizations, int64_t accounts) {
  std::string orgId, walletId, accountId;
  Copier org, wallet, account;
  store.read([&](Db& db) {
    auto a = db.queryOne(
        "SELECT id, wallet_id, organization_id FROM signing_wallet_accounts ORDER BY "
        "created_at_ms DESC LIMIT 1");
    if (!a) throw std::runtime_error("no wallet account to copy: create a wallet first");
    accountId = a->str("id");
    walletId = a->str("wallet_id");
    orgId = a->str("organization_id");
    org = copier(db, backend, "organizations", "id", {"id", "name"});
    wallet = copier(db, backend, "signing_wallets", "id", {"id", "organization_id", "name"});
    account = copier(db, backend, "signing_wallet_accounts", "id",
                     {"id", "organization_id", "wallet_id", "path", "address", "public_key"});
  });
  int64_t perOrg = std::max<int64_t>(1, accounts / std::max<int64_t>(1, organizations));
  for (int64_t done = 0; done < organizations;) {
    int64_t batch = std::min<int64_t>(500, organizations - done);
    store.transaction([&](Db& db) {
      for (int64_t i = 0; i < batch; ++i) {
        std::string o = crypto::uuidV4(), w = crypto::uuidV4();
        run(db, org, {{"id", o}, {"name", "seeded " + std::to_string(done + i)}}, orgId);
        run(db, wallet, {{"id", w}, {"organization_id", o}, {"name", "seeded"}}, walletId);
        for (int64_t k = 0; k < perOrg; ++k) {
          std::string id = crypto::uuidV4();
          run(db, account,
              {{"id", id},
               {"organization_id", o},
               {"wallet_id", w},
               {"path", "m/44'/60'/0'/0/" + std::to_string(k)},
               {"address", "0x" + sha256Hex(id).substr(0, 40)},
               {"public_key", "02" + sha256Hex("pk" + id)}},
              accountId);
        }
      }
    });
    done += batch;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 4) throw std::invalid_argument("usage");
    Config config = Config::load(argv[1]);
    Database store(config.database);
    std::string what = argv[2];
    auto started = std::chrono::steady_clock::now();
    if (what == "activities" && argc == 4)
      seedActivities(store, config.database.backend, std::stoll(argv[3]));
    else if (what == "tenants" && argc == 5)
      seedTenants(store, config.database.backend, std::stoll(argv[3]), std::stoll(argv[4]));
    else
      throw std::invalid_argument("usage");
    auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started);
    std::cerr << "seeded " << what << " in " << seconds.count() << " s\n";
    return 0;
  } catch (const std::invalid_argument&) {
    std::cerr
        << "usage: seed_store DATADIR activities N | DATADIR tenants ORGANIZATIONS ACCOUNTS\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "seed_store: " << e.what() << "\n";
    return 1;
  }
}
