#include "keyring.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

namespace signet {

namespace {
Bytes associatedData(const std::string& id, const std::string& kind) {
  std::string aad = "signet/keyring/v1";
  aad += '\0';
  aad += id;
  aad += '\0';
  aad += kind;
  return toBytes(aad);
}

crypto::SecretBytes parseKey(std::string text, const std::string& source) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  auto bytes = fromHex(text);
  crypto::wipe(text.data(), text.size());
  if (!bytes || bytes->size() != 32)
    throw internalError("the master key in " + source + " is not 64 hex digits");
  return crypto::SecretBytes(std::move(*bytes));
}
}  // namespace

crypto::SecretBytes MasterKey::load(const std::filesystem::path& file) {
  if (const char* env = std::getenv("SIGNET_MASTER_KEY"); env && *env)
    return parseKey(env, "SIGNET_MASTER_KEY");
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw internalError("master key file " + file.string() +
                        " not found (run `signet init` or set SIGNET_MASTER_KEY)");
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw internalError("master key file " + file.string() +
                        " is readable by others; chmod 600 it");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseKey(std::move(text), file.string());
}

void MasterKey::create(const std::filesystem::path& file) {
  if (std::filesystem::exists(file))
    throw failedPrecondition("master key file " + file.string() + " already exists");
  crypto::SecretBytes key(crypto::randomBytes(32));
  std::string hex = toHex(key.bytes()) + "\n";
  // Create with 0600 from the start: there is no moment at which the key is readable.
  mode_t old = ::umask(077);
  std::ofstream out(file, std::ios::out | std::ios::trunc);
  ::umask(old);
  out << hex;
  crypto::wipe(hex.data(), hex.size());
  out.close();
  std::filesystem::permissions(
      file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  if (!out) throw internalError("could not write master key file " + file.string());
}

void DbKeyring::seal(const std::string& id, const std::string& kind,
                     const crypto::SecretBytes& plaintext) {
  Bytes nonce;
  Bytes sealed = sealUnder(masterKey_, id, kind, plaintext, nonce);
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  db_.exec("DELETE FROM signet_secrets WHERE id = ?", {id});
  db_.exec(
      "INSERT INTO signet_secrets (id, kind, key_version, nonce, ciphertext, created_at_ms) "
      "VALUES (?, ?, 1, ?, ?, ?)",
      {id, kind, toHex(nonce), toHex(sealed), int64_t{now}});
}

std::optional<crypto::SecretBytes> openSealed(const crypto::SecretBytes& masterKey,
                                              const std::string& id, const std::string& kind,
                                              const std::string& nonceHex,
                                              const std::string& ciphertextHex) {
  auto nonce = fromHex(nonceHex);
  auto ciphertext = fromHex(ciphertextHex);
  if (!nonce || !ciphertext) return std::nullopt;
  return crypto::aesGcmOpen(masterKey, *nonce, *ciphertext, associatedData(id, kind));
}

Bytes sealUnder(const crypto::SecretBytes& masterKey, const std::string& id,
                const std::string& kind, const crypto::SecretBytes& plaintext, Bytes& nonce) {
  nonce = crypto::randomBytes(12);
  return crypto::aesGcmSeal(masterKey, nonce, plaintext.data(), plaintext.size(),
                            associatedData(id, kind));
}

crypto::SecretBytes DbKeyring::open(const std::string& id, const std::string& kind) {
  auto row = db_.queryOne(
      "SELECT kind, nonce, ciphertext, next_nonce, next_ciphertext FROM signet_secrets WHERE id = "
      "?",
      {id});
  if (!row) throw notFound("no secret " + id + " in the keyring");
  if (row->str(0) != kind)
    throw internalError("secret " + id + " is a " + row->str(0) + ", not a " + kind);
  auto opened = openSealed(masterKey_, id, kind, row->str(1), row->str(2));
  // A master-key rotation that stopped after installing the new key left the secret's copy
  // under it beside the old one (signet keys rotate-master finishes the job).
  if (!opened && row->optStr(4))
    opened = openSealed(masterKey_, id, kind, *row->optStr(3), *row->optStr(4));
  // Never say more than this: the ciphertext or key must not reach a log.
  if (!opened) throw internalError("secret " + id + " does not open under this master key");
  return std::move(*opened);
}

void DbKeyring::erase(const std::string& id) {
  db_.exec("DELETE FROM signet_secrets WHERE id = ?", {id});
}

Migration keyringMigration(int version) {
  return {version,
          "keyring: secrets sealed under the master key",
          {"CREATE TABLE signet_secrets (id TEXT PRIMARY KEY, kind TEXT NOT NULL, key_version "
           "INTEGER NOT NULL, nonce TEXT NOT NULL, ciphertext TEXT NOT NULL, created_at_ms "
           "BIGINT NOT NULL)"}};
}

Migration keyringRotationMigration(int version) {
  return {version,
          "keyring: each secret's copy under the next master key while a rotation runs",
          {"ALTER TABLE signet_secrets ADD COLUMN next_nonce TEXT",
           "ALTER TABLE signet_secrets ADD COLUMN next_ciphertext TEXT"}};
}

}  // namespace signet
