// Re-sealing every secret of the keyring under a new master key, so that a crash at any point
// leaves a store the installed key opens whole (`signet keys rotate-master`):
//   1. the new key is written to <master>.next (0600, synced) or, after a crash, read from it;
//   2. each secret gets a copy under the new key beside its copy under the old one, in batches,
//      each batch one transaction;
//   3. the old key file is kept as <master>.old and <master>.next is renamed over <master>
//      (atomic), the directory synced;
//   4. one transaction makes every new copy the secret and drops the old ones.
// Until step 3 the old key opens everything; from step 3 on the new one does (DbKeyring tries
// the new copy when the secret does not open). Running it again after a crash finishes the job.
#pragma once

#include <filesystem>

#include "store/database.hpp"
#include "store/pkcs11_token.hpp"

namespace signet {

struct RotationReport {
  size_t secrets = 0;  // re-sealed under the new key
  std::filesystem::path oldKeyFile;
};

// Refuses a master key given by SIGNET_MASTER_KEY (there is no file to replace). With `token`
// the key files are the wrapped ones (<master>.wrapped, its .next and .old), each written
// through the token. The gateway must not be serving from the store. Fault injection for the tests:
// SIGNET_FAULT_ROTATION_STOP_AFTER=N ends the process after N secrets got their new copy, and
// SIGNET_FAULT_ROTATION_STOP_BEFORE_PROMOTE=1 ends it after the key file was swapped.
RotationReport rotateMasterKey(Database& database, const std::filesystem::path& masterKeyFile,
                               const std::optional<Pkcs11Settings>& token = std::nullopt);

}  // namespace signet
