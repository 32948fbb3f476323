#include "bootstrap.hpp"

#include "tenancy/api_keys.hpp"
#include "tenancy/directory.hpp"

namespace signet {

BootstrapResult createRootOrganization(Db& db, const std::string& organizationName,
                                       const std::string& userName, const std::string& publicKeyHex,
                                       const std::string& curveName, int64_t nowMs) {
  if (organizationName.empty()) throw invalidArgument("invalid field --name: must not be empty");
  if (userName.empty()) throw invalidArgument("invalid field --user-name: must not be empty");
  OrganizationRecord org{crypto::uuidV4(), organizationName, std::nullopt, 1, nowMs, nowMs};
  UserRecord user{crypto::uuidV4(), org.id, userName, std::nullopt, std::nullopt, nowMs, nowMs};
  directory::insertOrganization(db, org);
  directory::insertUser(db, user);
  directory::addRootQuorumMember(db, org.id, user.id);
  auto key = api_keys::addKey(db, org.id, user.id, "root", publicKeyHex, curveName, std::nullopt,
                              nowMs, "--api-public-key");
  return {org.id, user.id, key.id};
}

}  // namespace signet
