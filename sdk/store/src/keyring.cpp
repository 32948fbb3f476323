#include "store/keyring.hpp"

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
  crypto::WipeOnExit wipeText(text);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  auto bytes = fromHex(text);
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

namespace {
// What the token's GCM binds the wrapped key to: a sealed key copied into another role
// does not open.
const Bytes kWrapContext = toBytes(std::string("signet/master-key/v1"));

void writePrivateFile(const std::filesystem::path& file, const std::string& text) {
  mode_t old = ::umask(077);
  std::ofstream out(file, std::ios::out | std::ios::trunc);
  ::umask(old);
  out << text;
  out.close();
  if (!out) throw internalError("could not write " + file.string());
}
}  // namespace

crypto::SecretBytes MasterKey::load(const std::filesystem::path& file,
                                    const std::optional<Pkcs11Settings>& token) {
  if (!token) return load(file);
  if (const char* env = std::getenv("SIGNET_MASTER_KEY"); env && *env)
    throw failedPrecondition(
        "SIGNET_MASTER_KEY is set, but the config keeps the master key in "
        "PKCS#11 token '" +
        token->token + "' (masterKeyPkcs11): unset one of them");
  return readWrapped(wrappedFile(file), *token);
}

crypto::SecretBytes MasterKey::readWrapped(const std::filesystem::path& wrapped,
                                           const Pkcs11Settings& token) {
  std::ifstream in(wrapped);
  if (!in)
    throw failedPrecondition("wrapped master key " + wrapped.string() +
                             " not found (signet keys wrap-master writes it)");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  auto sealed = fromHex(text);
  if (!sealed) throw failedPrecondition(wrapped.string() + " is not hex");
  Pkcs11Token hsm(token);
  auto key = hsm.decrypt(*sealed, kWrapContext);
  if (!key || key->size() != 32)
    throw failedPrecondition("the key '" + token.key + "' of token '" + token.token +
                             "' does not open " + wrapped.string());
  return std::move(*key);
}

std::string MasterKey::wrappedText(const crypto::SecretBytes& key, const Pkcs11Settings& token) {
  Pkcs11Token hsm(token);
  if (!hsm.hasKey()) hsm.generateKey();
  return toHex(hsm.encrypt(key, kWrapContext)) + "\n";
}

void MasterKey::wrap(const std::filesystem::path& file, const Pkcs11Settings& token) {
  auto wrapped = wrappedFile(file);
  if (std::filesystem::exists(wrapped))
    throw failedPrecondition(wrapped.string() + " exists already: the master key is wrapped");
  if (const char* env = std::getenv("SIGNET_MASTER_KEY"); env && *env)
    throw failedPrecondition("wrap-master wraps the key file " + file.string() +
                             "; unset SIGNET_MASTER_KEY");
  crypto::SecretBytes key = load(file);
  // Written beside, renamed into place, read back through the token: only then does the plain
  // key go. Interrupted anywhere, one of the two files opens the store.
  auto partial = std::filesystem::path(wrapped.string() + ".partial");
  writePrivateFile(partial, wrappedText(key, token));
  std::filesystem::rename(partial, wrapped);
  crypto::SecretBytes back = load(file, token);
  if (back.bytes() != key.bytes()) {
    std::filesystem::remove(wrapped);
    throw internalError("the token did not give back the master key it wrapped; " + file.string() +
                        " is kept");
  }
  std::filesystem::remove(file);
}

void MasterKey::create(const std::filesystem::path& file) {
  if (std::filesystem::exists(file))
    throw failedPrecondition("master key file " + file.string() + " already exists");
  crypto::SecretBytes key(crypto::randomBytes(32));
  std::string hex = toHex(key.bytes()) + "\n";
  crypto::WipeOnExit wipeHex(hex);
  // Create with 0600 from the start: there is no moment at which the key is readable.
  mode_t old = ::umask(077);
  std::ofstream out(file, std::ios::out | std::ios::trunc);
  ::umask(old);
  out << hex;
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
  static const std::string kRead = "SELECT " + SealedSecret::column("?");  // built once
  auto row = db_.queryOne(kRead, {id});
  auto sealed = row ? SealedSecret::fromRow(*row) : std::nullopt;
  if (!sealed) throw notFound("no secret " + id + " in the keyring");
  return open(id, kind, *sealed);
}

crypto::SecretBytes DbKeyring::open(const std::string& id, const std::string& kind,
                                    const SealedSecret& sealed) {
  if (sealed.kind != kind)
    throw internalError("secret " + id + " is a " + sealed.kind + ", not a " + kind);
  auto opened = openSealed(masterKey_, id, kind, sealed.nonce, sealed.ciphertext);
  // A master-key rotation that stopped after installing the new key left the secret's copy
  // under it beside the old one (signet keys rotate-master finishes the job).
  if (!opened && sealed.nextNonce && sealed.nextCiphertext)
    opened = openSealed(masterKey_, id, kind, *sealed.nextNonce, *sealed.nextCiphertext);
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
