// Secrets at rest. Each secret is sealed with AES-256-GCM under the master key with a fresh
// 96-bit nonce; the associated data binds the ciphertext to its record (id and kind), so a
// ciphertext copied onto another record does not open. Plaintext exists only in
// SecretBytes, which wipe themselves.
#pragma once

#include <filesystem>
#include <optional>

#include "signet/plugin.hpp"
#include "store/pkcs11_token.hpp"

namespace signet {

class MasterKey {
 public:
  // SIGNET_MASTER_KEY (64 hex digits) wins over the file; the file must be mode 0600.
  static crypto::SecretBytes load(const std::filesystem::path& file);
  // With a PKCS#11 token: the key in `file`.wrapped, opened by the token's key (wrappedFile()).
  // SIGNET_MASTER_KEY is refused then: the token is the only way to the key.
  static crypto::SecretBytes load(const std::filesystem::path& file,
                                  const std::optional<Pkcs11Settings>& token);
  static std::filesystem::path wrappedFile(const std::filesystem::path& file) {
    return file.string() + ".wrapped";
  }
  // A wrapped key file's key, opened by the token; and the text such a file holds for `key`.
  static crypto::SecretBytes readWrapped(const std::filesystem::path& wrapped,
                                         const Pkcs11Settings& token);
  static std::string wrappedText(const crypto::SecretBytes& key, const Pkcs11Settings& token);
  // Moves the key in `file` under the token's key (made in the token when absent): writes
  // `file`.wrapped (0600), checks that it opens to the same key, then deletes `file`.
  static void wrap(const std::filesystem::path& file, const Pkcs11Settings& token);
  // Writes a new random key to `file` with mode 0600; refuses to overwrite.
  static void create(const std::filesystem::path& file);
};

class DbKeyring : public Keyring {
 public:
  DbKeyring(Db& db, const crypto::SecretBytes& masterKey) : db_(db), masterKey_(masterKey) {}
  void seal(const std::string& id, const std::string& kind,
            const crypto::SecretBytes& plaintext) override;
  crypto::SecretBytes open(const std::string& id, const std::string& kind) override;
  crypto::SecretBytes open(const std::string& id, const std::string& kind,
                           const SealedSecret& sealed) override;
  void erase(const std::string& id) override;

 private:
  Db& db_;
  const crypto::SecretBytes& masterKey_;
};

// The core schema's keyring table, and the columns a master-key rotation fills.
Migration keyringMigration(int version);
Migration keyringRotationMigration(int version);

// A secret sealed under `masterKey`, bound to (id, kind); nullopt when it does not open.
std::optional<crypto::SecretBytes> openSealed(const crypto::SecretBytes& masterKey,
                                              const std::string& id, const std::string& kind,
                                              const std::string& nonceHex,
                                              const std::string& ciphertextHex);
// Seals under `masterKey`, bound to (id, kind); `nonce` receives the fresh nonce.
Bytes sealUnder(const crypto::SecretBytes& masterKey, const std::string& id,
                const std::string& kind, const crypto::SecretBytes& plaintext, Bytes& nonce);

}  // namespace signet
