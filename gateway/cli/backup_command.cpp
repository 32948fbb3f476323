// signet backup and signet restore: a consistent copy of a SQLite store taken while the gateway
// serves (SQLite's online backup API, https://www.sqlite.org/backup.html, copies every page
// inside one read transaction, so concurrent commits are either wholly in the copy or not at
// all), and putting such a copy back while the gateway is stopped. PostgreSQL has pg_dump.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/serve_lock.hpp"
#include "config/config.hpp"
#include "gateway.hpp"
#include "store/keyring.hpp"

namespace signet::cli {

namespace {
namespace fs = std::filesystem;

struct SqliteHandle {
  sqlite3* db = nullptr;
  ~SqliteHandle() { sqlite3_close(db); }
};

void openSqlite(SqliteHandle& h, const fs::path& path, int flags) {
  if (sqlite3_open_v2(path.c_str(), &h.db, flags, nullptr) != SQLITE_OK)
    throw failedPrecondition("cannot open " + path.string() + ": " +
                             (h.db ? sqlite3_errmsg(h.db) : "out of memory"));
  sqlite3_busy_timeout(h.db, 5000);
}

// Copies `from` into `to` in one step; a writer holding the lock at that instant only delays it.
void copyDatabase(sqlite3* from, sqlite3* to, const std::string& what) {
  sqlite3_backup* b = sqlite3_backup_init(to, "main", from, "main");
  if (!b) throw failedPrecondition(what + ": " + sqlite3_errmsg(to));
  int rc = SQLITE_OK;
  for (int attempt = 0; attempt < 200; ++attempt) {
    rc = sqlite3_backup_step(b, -1);
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE)
    throw failedPrecondition(what + " failed: " + std::string(sqlite3_errstr(rc)));
}

// A new file holding `from`'s pages, standing alone: one file, no WAL beside it.
void copyToFile(const fs::path& from, const fs::path& to, const std::string& what) {
  SqliteHandle src, dst;
  openSqlite(src, from, SQLITE_OPEN_READONLY);
  openSqlite(dst, to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  copyDatabase(src.db, dst.db, what);
  sqlite3_exec(dst.db, "PRAGMA journal_mode=DELETE", nullptr, nullptr, nullptr);
}

std::string scalar(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return out;
}

void syncFile(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw failedPrecondition("cannot sync " + path.string());
  }
  ::close(fd);
}

fs::path sqlitePath(const Config& config, const char* command) {
  if (config.database.backend != Backend::kSqlite)
    throw failedPrecondition(std::string("signet ") + command +
                             " copies SQLite stores; for PostgreSQL use pg_dump and pg_restore "
                             "(see docs/cli.md)");
  return config.database.connection;
}

// What a restore checks before it replaces anything: the copy is a whole SQLite database, it
// is a Signet store, and this data directory's master key opens its secrets.
void checkBackup(const fs::path& file, const Config& config) {
  SqliteHandle h;
  openSqlite(h, file, SQLITE_OPEN_READONLY);
  std::string integrity = scalar(h.db, "PRAGMA integrity_check");
  if (integrity != "ok")
    throw failedPrecondition(file.string() + " is not an intact SQLite database (" +
                             (integrity.empty() ? "unreadable" : integrity) + ")");
  if (scalar(h.db, "SELECT value FROM gateway_settings WHERE name = 'signer_public_key'").empty())
    throw failedPrecondition(file.string() + " is not a Signet store (it has no signer key)");
  DatabaseConfig db;
  db.backend = Backend::kSqlite;
  db.connection = file.string();
  Database database(db);
  auto masterKey = MasterKey::load(config.masterKeyFile, config.masterKeyPkcs11);
  try {
    database.read([&](Db& tx) {
      DbKeyring(tx, masterKey).open(Gateway::kSignerSecretId, Gateway::kSignerKind);
    });
  } catch (const Error&) {
    throw failedPrecondition("the master key of this data directory (" +
                             config.masterKeyFile.string() +
                             " or SIGNET_MASTER_KEY) does not open " + file.string() +
                             "'s secrets: restore it with the key it was made under");
  }
}
}  // namespace

int backupCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "out", "config"}, {});
  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  fs::path source = sqlitePath(config, "backup");
  fs::path out = args.require("out");
  if (fs::exists(out)) throw failedPrecondition(out.string() + " exists; choose a new file");
  fs::path partial = out.string() + ".partial";
  fs::remove(partial);
  copyToFile(source, partial, "backup of " + source.string());
  fs::permissions(partial, fs::perms::owner_read | fs::perms::owner_write,
                  fs::perm_options::replace);
  syncFile(partial);
  fs::rename(partial, out);
  std::cout << "{\"backup\":\"" << out.string() << "\",\"bytes\":" << fs::file_size(out) << "}"
            << std::endl;
  return 0;
}

int restoreCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "from", "config"}, {});
  std::string dataDir = args.require("data-dir");
  Config config = Config::load(dataDir, args.get("config").value_or(""));
  fs::path target = sqlitePath(config, "restore");
  fs::path from = args.require("from");
  if (!fs::exists(from)) throw failedPrecondition(from.string() + " does not exist");
  // Replacing the store under a running gateway would lose what it writes next.
  ServeLock lock(dataDir);
  if (!lock.acquired())
    throw failedPrecondition("a gateway is serving from " + dataDir +
                             "; stop it before restoring (signet backup works while it serves)");
  checkBackup(from, config);
  fs::path incoming = target.string() + ".restoring";
  fs::remove(incoming);
  copyToFile(from, incoming, "restore of " + from.string());
  syncFile(incoming);
  // The old store's WAL belongs to the old file: it must not be replayed into the new one.
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(target.string() + suffix);
  fs::rename(incoming, target);
  std::cout << "{\"restored\":\"" << target.string() << "\",\"from\":\"" << from.string() << "\"}"
            << std::endl;
  return 0;
}

}  // namespace signet::cli
