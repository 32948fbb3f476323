// API keys, in the core: create_api_keys (V2), delete_api_keys, get_api_keys, get_api_key.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"
#include "tenancy/directory.hpp"

namespace signet::api_keys {

// Per-user caps (Turnkey's documented resource limits): long-lived and expiring keys are counted
// apart; a new expiring key beyond its cap evicts an expired key first, else the oldest.
inline constexpr size_t kMaxLongLivedKeysPerUser = 10;
inline constexpr size_t kMaxExpiringKeysPerUser = 10;

struct ApiKeyParameters {
  std::string apiKeyName, publicKey, curveType;
  std::optional<int64_t> expirationSeconds;
};
struct CreateApiKeysParameters {
  std::string userId;
  std::vector<ApiKeyParameters> apiKeys;
};
struct DeleteApiKeysParameters {
  std::string userId;
  std::vector<std::string> apiKeyIds;
};
extern const Shape<CreateApiKeysParameters> kCreateApiKeys;
extern const Shape<DeleteApiKeysParameters> kDeleteApiKeys;

json::Object createApiKeys(ActivityContext& ctx, const CreateApiKeysParameters& params);
json::Object deleteApiKeys(ActivityContext& ctx, const DeleteApiKeysParameters& params);
json::Object getApiKeys(RequestContext& ctx, const json::Object& body);
json::Object getApiKey(RequestContext& ctx, const json::Object& body);

// Validates and stores one key for a user, applying the caps. Used by the activity, the
// organization bootstrap and session logins (which name the key's session profile). `field`
// names the parameter in errors.
ApiKeyRecord addKey(Db& db, const std::string& organizationId, const std::string& userId,
                    const std::string& name, const std::string& publicKeyHex,
                    const std::string& curveName, std::optional<int64_t> expirationSeconds,
                    int64_t nowMs, const std::string& field, const std::string& credentialType = {},
                    std::optional<std::string> sessionProfileId = std::nullopt);

}  // namespace signet::api_keys
