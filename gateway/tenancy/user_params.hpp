// Building a user from UserParams (create_users V3/V4) or RootUserParams (create_sub_organization
// V4..V8): the user, their API keys, passkeys, OAuth providers and tags, with the per-user and
// per-organization limits Turnkey documents for its resources.
#pragma once

#include "signet/plugin.hpp"
#include "tenancy/directory.hpp"

namespace signet::users {

inline constexpr size_t kMaxUsersPerOrganization = 100;
inline constexpr size_t kMaxAuthenticatorsPerUser = 10;

// Absent arrays count as empty, and an API key without curveType is P-256 (the oldest
// params had none). `withTags` accepts userTags (ids of existing tags).
UserRecord createFromParams(ActivityContext& ctx, const std::string& organizationId,
                            const json::Object& params, const std::string& field, bool withTags);

std::string addAuthenticator(Db& db, const std::string& organizationId, const std::string& userId,
                             const json::Object& params, const std::string& field, int64_t nowMs);

// Replaces a user's tag memberships with `tagIds`, each of which must be a tag of the
// organization.
void setTags(Db& db, const std::string& organizationId, const std::string& userId,
             const std::vector<std::string>& tagIds, const std::string& field);

}  // namespace signet::users
