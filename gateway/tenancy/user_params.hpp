// Building a user from UserParams (create_users V3/V4) or RootUserParams (create_sub_organization
// V4..V8): the user, their API keys, passkeys, OAuth providers and tags, with the per-user and
// per-organization limits Turnkey documents for its resources.
#pragma once

#include "auth/attestation.hpp"
#include "signet/plugin.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet::users {

inline constexpr size_t kMaxUsersPerOrganization = 100;
inline constexpr size_t kMaxAuthenticatorsPerUser = 10;

// ApiKeyParamsV2, and the oldest apiApiKeyParams, which had no curveType (P-256 then).
struct ApiKeyParameters {
  std::string apiKeyName, publicKey;
  std::optional<std::string> curveType;
  std::optional<int64_t> expirationSeconds;  // a decimal string or an integer
};
// UserParamsV3/V4 and RootUserParams to RootUserParamsV4. The lists are optional, though the
// API marks them required: a client's JSON encoding may leave an empty list out.
struct UserParameters {
  std::string userName;
  std::optional<std::string> userEmail, userPhoneNumber;
  std::optional<std::vector<ApiKeyParameters>> apiKeys;
  std::optional<std::vector<AuthenticatorParameters>> authenticators;
  std::optional<std::vector<oauth_providers::ProviderParameters>> oauthProviders;
  std::optional<std::vector<std::string>> userTags;  // ids of existing tags; not a root user's
};
// Made on first use: other files' shapes nest them (typed_parameters.hpp).
const Shape<UserParameters>& userShape();      // create_users'
const Shape<UserParameters>& rootUserShape();  // create_sub_organization's: no userTags

// The user `params` describes, with their keys, passkeys, providers and tags; `field` is where
// the parameters sit in the intent ("parameters.users[2]"), for messages.
UserRecord createFromParams(ActivityContext& ctx, const std::string& organizationId,
                            const UserParameters& params, const std::string& field);

std::string addAuthenticator(Db& db, const std::string& organizationId, const std::string& userId,
                             const AuthenticatorParameters& params, const std::string& field,
                             int64_t nowMs);

// Replaces a user's tag memberships with `tagIds`, each of which must be a tag of the
// organization.
void setTags(Db& db, const std::string& organizationId, const std::string& userId,
             const std::vector<std::string>& tagIds, const std::string& field);

}  // namespace signet::users
