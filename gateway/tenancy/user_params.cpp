#include "tenancy/user_params.hpp"

#include "auth/attestation.hpp"
#include "signet/jwt.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/contacts.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet::users {

namespace {
size_t count(Db& db, const std::string& sql, const SqlParams& params) {
  return static_cast<size_t>(db.queryOne(sql, params)->i64("n"));
}
}  // namespace

std::string addAuthenticator(Db& db, const std::string& organizationId, const std::string& userId,
                             const json::Object& params, const std::string& field, int64_t nowMs) {
  AuthenticatorRecord a;
  parseAuthenticatorParams(params, field, a);
  if (count(db,
            "SELECT COUNT(*) AS n FROM authenticators WHERE organization_id = ? AND user_id = ?",
            {organizationId, userId}) >= kMaxAuthenticatorsPerUser)
    throw resourceExhausted("user " + userId + " in organization " + organizationId +
                            " already has " + std::to_string(kMaxAuthenticatorsPerUser) +
                            " authenticators, the limit");
  for (const auto& other : directory::authenticatorsByCredentialId(db, a.credentialId))
    if (other.organizationId == organizationId)
      throw Error(Code::kAlreadyExists, "credential " + a.credentialId +
                                            " is already registered in organization " +
                                            organizationId + " (authenticator " + other.id + ")");
  a.id = crypto::uuidV4();
  a.organizationId = organizationId;
  a.userId = userId;
  a.createdAtMs = a.updatedAtMs = nowMs;
  directory::insertAuthenticator(db, a);
  return a.id;
}

void setTags(Db& db, const std::string& organizationId, const std::string& userId,
             const std::vector<std::string>& tagIds, const std::string& field) {
  for (size_t i = 0; i < tagIds.size(); ++i)
    if (!db.queryOne("SELECT 1 FROM user_tags WHERE organization_id = ? AND id = ?",
                     {organizationId, tagIds[i]}))
      throw notFound("user tag " + tagIds[i] + " (" + field + "[" + std::to_string(i) +
                     "]) not found in organization " + organizationId);
  db.exec(
      "DELETE FROM user_tag_members WHERE user_id = ? AND tag_id IN (SELECT id FROM user_tags "
      "WHERE organization_id = ?)",
      {userId, organizationId});
  for (const auto& tag : tagIds)
    if (!db.queryOne("SELECT 1 FROM user_tag_members WHERE tag_id = ? AND user_id = ?",
                     {tag, userId}))
      db.exec("INSERT INTO user_tag_members (tag_id, user_id) VALUES (?, ?)", {tag, userId});
}

UserRecord createFromParams(ActivityContext& ctx, const std::string& organizationId,
                            const json::Object& params, const std::string& field, bool withTags) {
  Db& db = ctx.db();
  int64_t now = ctx.nowMs();
  UserRecord user;
  user.id = crypto::uuidV4();
  user.organizationId = organizationId;
  user.name = json::requireName(params, "userName", field);
  if (user.name.empty())
    throw invalidArgument("invalid field " + field + ".userName: must not be empty");
  if (auto email = json::optionalString(params, "userEmail", field); email && !email->empty())
    user.email = contacts::validateEmail(*email, field + ".userEmail");
  if (auto phone = json::optionalString(params, "userPhoneNumber", field); phone && !phone->empty())
    user.phoneNumber = contacts::validatePhoneNumber(*phone, field + ".userPhoneNumber");
  user.createdAtMs = user.updatedAtMs = now;
  if (directory::countUsers(db, organizationId) >= kMaxUsersPerOrganization)
    throw resourceExhausted("organization " + organizationId + " already has " +
                            std::to_string(kMaxUsersPerOrganization) + " users, the limit");
  directory::insertUser(db, user);

  if (auto keys = json::optionalArray(params, "apiKeys", field))
    for (size_t i = 0; i < keys->size(); ++i) {
      std::string f = field + ".apiKeys[" + std::to_string(i) + "]";
      auto k = json::objectAt(keys, i, field + ".apiKeys");
      api_keys::addKey(db, organizationId, user.id, json::requireName(k, "apiKeyName", f),
                       json::requireString(k, "publicKey", f),
                       json::optionalString(k, "curveType", f).value_or("API_KEY_CURVE_P256"),
                       json::optionalInt64String(k, "expirationSeconds", f), now, f);
    }
  if (auto list = json::optionalArray(params, "authenticators", field))
    for (size_t i = 0; i < list->size(); ++i)
      addAuthenticator(db, organizationId, user.id,
                       json::objectAt(list, i, field + ".authenticators"),
                       field + ".authenticators[" + std::to_string(i) + "]", now);
  if (auto list = json::optionalArray(params, "oauthProviders", field))
    for (size_t i = 0; i < list->size(); ++i)
      oauth_providers::add(ctx, organizationId, user.id,
                           json::objectAt(list, i, field + ".oauthProviders"),
                           field + ".oauthProviders[" + std::to_string(i) + "]");
  if (withTags)
    setTags(db, organizationId, user.id, json::optionalStringArray(params, "userTags", field),
            field + ".userTags");
  return user;
}

}  // namespace signet::users
