// Credentials an organization registers with a module: their public fields in a table of the
// module's (one row per credential, with its id column and organization_id), their secret parts
// sealed in the keyring beside the row. One piece for the fiat on-ramp credentials, the OAuth 2.0
// client credentials and the auth proxy's configurations, so that every secret part is sealed,
// opened and erased with its row the same way, and none outlives its credential.
#pragma once

#include <string>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/db.hpp"

namespace signet {

class Keyring;

struct SealedCredentials {
  // A secret part of each credential: sealed as `kind` under prefix + the credential's id +
  // suffix (the ids the stores already hold, so that no sealed secret has to move).
  struct Part {
    std::string prefix;
    std::string suffix;
    std::string kind;
    std::string idOf(const std::string& credentialId) const {
      return prefix + credentialId + suffix;
    }
  };

  std::string table;          // fiat_onramp_credentials
  std::string idColumn;       // id
  std::string noun;           // "fiat on-ramp credential", in messages
  size_t maxPerOrganization;  // 0: no bound
  std::vector<Part> parts;

  // ResourceExhausted naming the noun and the bound when the organization holds as many
  // credentials as it may.
  void requireRoom(Db& db, const std::string& organizationId) const;
  void seal(Keyring& keyring, const Part& part, const std::string& credentialId,
            const crypto::SecretBytes& secret) const;
  crypto::SecretBytes open(Keyring& keyring, const Part& part,
                           const std::string& credentialId) const;
  void erase(Keyring& keyring, const Part& part, const std::string& credentialId) const;
  // Deletes the credential's row and erases every part; false when the organization has no
  // such credential (then nothing changes).
  bool remove(Db& db, Keyring& keyring, const std::string& organizationId,
              const std::string& credentialId) const;
  // Every credential of the organization, rows and parts (the organization is deleted).
  void removeAllOf(Db& db, Keyring& keyring, const std::string& organizationId) const;
};

}  // namespace signet
