#include "signet/sealed_credentials.hpp"

#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signet {

void SealedCredentials::requireRoom(Db& db, const std::string& organizationId) const {
  if (maxPerOrganization == 0) return;
  auto held = db.queryOne("SELECT COUNT(*) AS n FROM " + table + " WHERE organization_id = ?",
                          {organizationId})
                  ->i64("n");
  if (held >= static_cast<int64_t>(maxPerOrganization))
    throw resourceExhausted("organization " + organizationId + " already has " +
                            std::to_string(maxPerOrganization) + " " + noun + "s, the limit");
}

void SealedCredentials::seal(Keyring& keyring, const Part& part, const std::string& credentialId,
                             const crypto::SecretBytes& secret) const {
  keyring.seal(part.idOf(credentialId), part.kind, secret);
}

crypto::SecretBytes SealedCredentials::open(Keyring& keyring, const Part& part,
                                            const std::string& credentialId) const {
  return keyring.open(part.idOf(credentialId), part.kind);
}

void SealedCredentials::erase(Keyring& keyring, const Part& part,
                              const std::string& credentialId) const {
  keyring.erase(part.idOf(credentialId));
}

bool SealedCredentials::remove(Db& db, Keyring& keyring, const std::string& organizationId,
                               const std::string& credentialId) const {
  if (db.exec("DELETE FROM " + table + " WHERE organization_id = ? AND " + idColumn + " = ?",
              {organizationId, credentialId}) == 0)
    return false;
  for (const auto& part : parts) erase(keyring, part, credentialId);
  return true;
}

void SealedCredentials::removeAllOf(Db& db, Keyring& keyring,
                                    const std::string& organizationId) const {
  for (const auto& row :
       db.query("SELECT " + idColumn + " AS id FROM " + table + " WHERE organization_id = ?",
                {organizationId}))
    for (const auto& part : parts) erase(keyring, part, row.str("id"));
  db.exec("DELETE FROM " + table + " WHERE organization_id = ?", {organizationId});
}

}  // namespace signet
