#include "api_keys.hpp"

#include <set>

namespace signet::api_keys {

namespace {
std::string canonicalPublicKey(const std::string& hex, crypto::Curve curve,
                               const std::string& field) {
  auto bytes = fromHex(hex);
  if (!bytes)
    throw invalidArgument("invalid field " + field + ".publicKey: \"" + hex + "\" is not hex");
  auto canonical = crypto::normalizePublicKey(curve, *bytes);
  if (!canonical)
    throw invalidArgument("invalid field " + field + ".publicKey: " + hex + " is not a " +
                          crypto::curveName(curve) + " public key");
  return toHex(*canonical);
}

void applyCaps(Db& db, const std::string& organizationId, const std::string& userId, bool expiring,
               int64_t nowMs) {
  size_t longLived = 0;
  std::vector<ApiKeyRecord> expiringKeys;
  for (auto& k : directory::apiKeysOfUser(db, organizationId, userId)) {
    if (k.expiresAtMs)
      expiringKeys.push_back(k);
    else
      ++longLived;
  }
  if (!expiring) {
    if (longLived >= kMaxLongLivedKeysPerUser)
      throw resourceExhausted("user " + userId + " in organization " + organizationId +
                              " already has " + std::to_string(longLived) +
                              " long-lived API keys, the limit is " +
                              std::to_string(kMaxLongLivedKeysPerUser));
    return;
  }
  if (expiringKeys.size() < kMaxExpiringKeysPerUser) return;
  // Evict an expired key if there is one, else the oldest (apiKeysOfUser is oldest first).
  const ApiKeyRecord* victim = &expiringKeys.front();
  for (const auto& k : expiringKeys)
    if (*k.expiresAtMs <= nowMs) {
      victim = &k;
      break;
    }
  directory::deleteApiKey(db, organizationId, victim->id);
}
}  // namespace

ApiKeyRecord addKey(Db& db, const std::string& organizationId, const std::string& userId,
                    const std::string& name, const std::string& publicKeyHex,
                    const std::string& curveName, std::optional<int64_t> expirationSeconds,
                    int64_t nowMs, const std::string& field, const std::string& credentialType,
                    std::optional<std::string> sessionProfileId) {
  auto curve = apiKeyCurve(curveName);
  if (!curve)
    throw invalidArgument("invalid field " + field + ".curveType: \"" + curveName +
                          "\" (expected API_KEY_CURVE_P256, API_KEY_CURVE_SECP256K1 or "
                          "API_KEY_CURVE_ED25519)");
  if (name.empty())
    throw invalidArgument("invalid field " + field + ".apiKeyName: must not be empty");
  if (expirationSeconds && *expirationSeconds <= 0)
    throw invalidArgument("invalid field " + field + ".expirationSeconds: must be positive, got " +
                          std::to_string(*expirationSeconds));
  ApiKeyRecord key;
  key.publicKey = canonicalPublicKey(publicKeyHex, *curve, field);
  // One owner per public key across a parent's whole tree (the parent and its
  // sub-organizations): a stamp from the parent resolves downward, and two rows would leave
  // which of them answers to the database's row order.
  auto organization = directory::findOrganization(db, organizationId);
  const std::string tree =
      organization && organization->parentId ? *organization->parentId : organizationId;
  for (const auto& other : directory::apiKeysByPublicKey(db, key.publicKey)) {
    auto owner = directory::findOrganization(db, other.organizationId);
    std::string ownerTree = owner && owner->parentId ? *owner->parentId : other.organizationId;
    if (ownerTree == tree)
      throw Error(Code::kAlreadyExists,
                  "public key " + key.publicKey + " is already registered in organization " +
                      other.organizationId + " (API key " + other.id + ")" +
                      (other.organizationId == organizationId
                           ? std::string()
                           : ", of the same tree as " + organizationId +
                                 "; a key has one owner across a parent and its "
                                 "sub-organizations"));
  }
  applyCaps(db, organizationId, userId, expirationSeconds.has_value(), nowMs);
  key.id = crypto::uuidV4();
  key.organizationId = organizationId;
  key.userId = userId;
  key.name = name;
  key.curve = curveName;
  key.credentialType = credentialType.empty() ? apiKeyCredentialType(*curve) : credentialType;
  if (expirationSeconds) key.expiresAtMs = nowMs + *expirationSeconds * 1000;
  key.createdAtMs = key.updatedAtMs = nowMs;
  key.sessionProfileId = std::move(sessionProfileId);
  directory::insertApiKey(db, key);
  return key;
}

const Shape<ApiKeyParameters> kApiKey = {
    field("apiKeyName", &ApiKeyParameters::apiKeyName),
    field("publicKey", &ApiKeyParameters::publicKey),
    field("curveType", &ApiKeyParameters::curveType),
    field("expirationSeconds", &ApiKeyParameters::expirationSeconds, {.decimal = true})};
const Shape<CreateApiKeysParameters> kCreateApiKeys = {
    field("userId", &CreateApiKeysParameters::userId),
    field("apiKeys", &CreateApiKeysParameters::apiKeys, kApiKey)};
const Shape<DeleteApiKeysParameters> kDeleteApiKeys = {
    field("userId", &DeleteApiKeysParameters::userId),
    field("apiKeyIds", &DeleteApiKeysParameters::apiKeyIds)};

json::Object createApiKeys(ActivityContext& ctx, const CreateApiKeysParameters& params) {
  const std::string& userId = params.userId;
  if (params.apiKeys.empty())
    throw invalidArgument("invalid field parameters.apiKeys: must not be empty");
  // Check every entry before touching the store.
  std::set<std::string> seen;
  for (size_t i = 0; i < params.apiKeys.size(); ++i)
    if (!seen.insert(params.apiKeys[i].publicKey).second)
      throw invalidArgument("invalid field parameters.apiKeys[" + std::to_string(i) +
                            "].publicKey: " + params.apiKeys[i].publicKey +
                            " appears twice in this request");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  std::vector<std::string> ids;
  for (size_t i = 0; i < params.apiKeys.size(); ++i) {
    const ApiKeyParameters& k = params.apiKeys[i];
    ids.push_back(addKey(ctx.db(), ctx.organizationId(), userId, k.apiKeyName, k.publicKey,
                         k.curveType, k.expirationSeconds, ctx.nowMs(),
                         "parameters.apiKeys[" + std::to_string(i) + "]")
                      .id);
  }
  json::Object result = json::object();
  result->set("apiKeyIds", json::stringArray(ids));
  return result;
}

json::Object deleteApiKeys(ActivityContext& ctx, const DeleteApiKeysParameters& params) {
  const std::string& userId = params.userId;
  const auto& ids = params.apiKeyIds;
  if (ids.empty()) throw invalidArgument("invalid field parameters.apiKeyIds: must not be empty");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  for (const auto& id : ids) {
    auto key = directory::findApiKey(ctx.db(), ctx.organizationId(), id);
    if (!key || key->userId != userId)
      throw notFound("API key " + id + " of user " + userId + " not found in organization " +
                     ctx.organizationId());
    directory::deleteApiKey(ctx.db(), ctx.organizationId(), id);
  }
  json::Object result = json::object();
  result->set("apiKeyIds", json::stringArray(ids));
  return result;
}

json::Object getApiKeys(RequestContext& ctx, const json::Object& body) {
  auto userId = json::optionalString(body, "userId", "");
  json::Array keys = json::array();
  if (userId) {
    directory::requireUser(ctx.db(), ctx.organizationId(), *userId);
    for (const auto& k : directory::apiKeysOfUser(ctx.db(), ctx.organizationId(), *userId))
      keys->add(apiKeyJson(k));
  } else {
    // Without a userId: every API key of the organization.
    for (const auto& k : directory::apiKeysOfOrganization(ctx.db(), ctx.organizationId()))
      keys->add(apiKeyJson(k));
  }
  json::Object out = json::object();
  out->set("apiKeys", keys);
  return out;
}

json::Object getApiKey(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "apiKeyId", "");
  auto key = directory::findApiKey(ctx.db(), ctx.organizationId(), id);
  if (!key) throw notFound("API key " + id + " not found in organization " + ctx.organizationId());
  json::Object out = json::object();
  out->set("apiKey", apiKeyJson(*key));
  return out;
}

}  // namespace signet::api_keys
