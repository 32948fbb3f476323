#include "store/master_key_rotation.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "store/keyring.hpp"

namespace signet {

namespace {
namespace fs = std::filesystem;
constexpr size_t kBatch = 50;  // secrets a transaction re-seals

void syncPath(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void stopIfAsked(const char* variable, size_t reached) {
  const char* v = std::getenv(variable);
  if (v && *v && reached >= static_cast<size_t>(std::strtoull(v, nullptr, 10))) std::_Exit(75);
}

// One batch: secrets after `after` (by id) get a copy under `next`; returns the last id seen,
// empty when none was left.
std::string copyBatch(Database& database, const std::string& after,
                      const crypto::SecretBytes& current, const crypto::SecretBytes& next,
                      size_t& copied) {
  std::string last;
  database.transaction([&](Db& db) {
    size_t inBatch = 0;
    for (const auto& row :
         db.query("SELECT id, kind, nonce, ciphertext, next_nonce, next_ciphertext FROM "
                  "signet_secrets WHERE id > ? ORDER BY id LIMIT " +
                      std::to_string(kBatch),
                  {after})) {
      last = row.str("id");
      const std::string id = row.str("id"), kind = row.str("kind");
      auto pendingNonce = row.optStr("next_nonce"),
           pendingCiphertext = row.optStr("next_ciphertext");
      // Already copied by an earlier run that stopped.
      if (pendingCiphertext && openSealed(next, id, kind, *pendingNonce, *pendingCiphertext))
        continue;
      auto plaintext = openSealed(current, id, kind, row.str("nonce"), row.str("ciphertext"));
      if (!plaintext && pendingCiphertext)
        plaintext = openSealed(current, id, kind, *pendingNonce, *pendingCiphertext);
      if (!plaintext)
        throw failedPrecondition("secret " + id +
                                 " does not open under the installed master key; nothing was "
                                 "changed for it");
      Bytes nonce;
      Bytes sealed = sealUnder(next, id, kind, *plaintext, nonce);
      db.exec("UPDATE signet_secrets SET next_nonce = ?, next_ciphertext = ? WHERE id = ?",
              {toHex(nonce), toHex(sealed), id});
      ++inBatch;
    }
    copied += inBatch;
  });
  return last;
}

// Step 4: every copy that opens under `installed` becomes the secret; a copy that does not (left
// by a run whose key file was lost) is dropped. Returns how many were promoted.
size_t promote(Database& database, const crypto::SecretBytes& installed) {
  size_t promoted = 0;
  database.transaction([&](Db& db) {
    for (const auto& row :
         db.query("SELECT id, kind, next_nonce, next_ciphertext FROM signet_secrets WHERE "
                  "next_ciphertext IS NOT NULL")) {
      bool opens = openSealed(installed, row.str("id"), row.str("kind"), row.str("next_nonce"),
                              row.str("next_ciphertext"))
                       .has_value();
      if (opens) {
        db.exec(
            "UPDATE signet_secrets SET nonce = next_nonce, ciphertext = next_ciphertext, "
            "next_nonce = NULL, next_ciphertext = NULL WHERE id = ?",
            {row.str("id")});
        ++promoted;
      } else {
        db.exec("UPDATE signet_secrets SET next_nonce = NULL, next_ciphertext = NULL WHERE id = ?",
                {row.str("id")});
      }
    }
  });
  return promoted;
}

void writeKeyFile(const fs::path& file, const crypto::SecretBytes& key,
                  const std::optional<Pkcs11Settings>& token) {
  std::string hex = token ? MasterKey::wrappedText(key, *token) : toHex(key.bytes()) + "\n";
  crypto::WipeOnExit wipeHex(hex);
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw failedPrecondition("cannot write " + file.string());
  bool ok =
      ::write(fd, hex.data(), hex.size()) == static_cast<ssize_t>(hex.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw failedPrecondition("cannot write " + file.string());
}
}  // namespace

RotationReport rotateMasterKey(Database& database, const fs::path& keyFile,
                               const std::optional<Pkcs11Settings>& token) {
  // The file that holds the key: the plain one, or the one the token wraps.
  const fs::path masterKeyFile = token ? MasterKey::wrappedFile(keyFile) : keyFile;
  auto readKey = [&](const fs::path& file) {
    return token ? MasterKey::readWrapped(file, *token) : MasterKey::load(file);
  };
  if (const char* env = std::getenv("SIGNET_MASTER_KEY"); env && *env)
    throw failedPrecondition(
        "the master key comes from SIGNET_MASTER_KEY: rotate-master replaces the key file, so "
        "move the key into " +
        masterKeyFile.string() + " (0600) first");
  const fs::path nextFile = masterKeyFile.string() + ".next";
  const fs::path oldFile = masterKeyFile.string() + ".old";
  crypto::SecretBytes current = readKey(masterKeyFile);
  RotationReport report;
  report.oldKeyFile = oldFile;
  // A run that stopped after the swap: its copies are under the installed key. Finish it; that
  // is the rotation asked for.
  if (!fs::exists(nextFile)) {
    if (size_t finished = promote(database, current)) {
      report.secrets = finished;
      return report;
    }
    if (fs::exists(oldFile))
      throw failedPrecondition(
          oldFile.string() +
          " from an earlier rotation is still there: destroy it once no backup needs it (or move "
          "it away), then rotate again");
    writeKeyFile(nextFile, crypto::SecretBytes(crypto::randomBytes(32)), token);
  }
  // A run that stopped before the swap left its key: the copies already made are under it.
  crypto::SecretBytes next = readKey(nextFile);

  std::string after;
  size_t copied = 0;
  while (true) {
    after = copyBatch(database, after, current, next, copied);
    stopIfAsked("SIGNET_FAULT_ROTATION_STOP_AFTER", copied);
    if (after.empty()) break;
  }
  report.secrets = copied;

  // The swap: the old key stays beside it until the operator destroys it.
  if (!fs::exists(oldFile)) {
    writeKeyFile(oldFile, current, token);
    syncPath(oldFile.parent_path());
  }
  fs::rename(nextFile, masterKeyFile);
  syncPath(masterKeyFile.parent_path());
  stopIfAsked("SIGNET_FAULT_ROTATION_STOP_BEFORE_PROMOTE", 1);

  promote(database, next);
  return report;
}

}  // namespace signet
