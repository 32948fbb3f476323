#include "tenancy/user_params.hpp"

#include "signet/jwt.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/contacts.hpp"

namespace signet::users {

namespace {
size_t count(Db& db, const std::string& sql, const SqlParams& params) {
  return static_cast<size_t>(db.queryOne(sql, params)->i64("n"));
}

Shape<UserParameters> makeUserShape(bool withTags) {
  using K = ApiKeyParameters;
  static const Shape<K> apiKey = {
      field("apiKeyName", &K::apiKeyName, {.displayName = true}), field("publicKey", &K::publicKey),
      field("curveType", &K::curveType),
      field("expirationSeconds", &K::expirationSeconds, {.decimal = true})};
  using U = UserParameters;
  auto name = field("userName", &U::userName, {.displayName = true});
  auto email = field("userEmail", &U::userEmail);
  auto phone = field("userPhoneNumber", &U::userPhoneNumber);
  auto keys = field("apiKeys", &U::apiKeys, apiKey);
  auto passkeys = field("authenticators", &U::authenticators, authenticatorShape());
  auto providers = field("oauthProviders", &U::oauthProviders, oauth_providers::providerShape());
  if (!withTags) return {name, email, phone, keys, passkeys, providers};
  return {name, email, phone, keys, passkeys, providers, field("userTags", &U::userTags)};
}
}  // namespace

const Shape<UserParameters>& userShape() {
  static const Shape<UserParameters> shape = makeUserShape(true);
  return shape;
}

const Shape<UserParameters>& rootUserShape() {
  static const Shape<UserParameters> shape = makeUserShape(false);
  return shape;
}

std::string addAuthenticator(Db& db, const std::string& organizationId, const std::string& userId,
                             const AuthenticatorParameters& params, const std::string& field,
                             int64_t nowMs) {
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
                            const UserParameters& params, const std::string& field) {
  Db& db = ctx.db();
  int64_t now = ctx.nowMs();
  UserRecord user;
  user.id = crypto::uuidV4();
  user.organizationId = organizationId;
  user.name = params.userName;
  if (user.name.empty())
    throw invalidArgument("invalid field " + field + ".userName: must not be empty");
  if (const auto& email = params.userEmail; email && !email->empty())
    user.email = contacts::validateEmail(*email, field + ".userEmail");
  if (const auto& phone = params.userPhoneNumber; phone && !phone->empty())
    user.phoneNumber = contacts::validatePhoneNumber(*phone, field + ".userPhoneNumber");
  user.createdAtMs = user.updatedAtMs = now;
  if (directory::countUsers(db, organizationId) >= kMaxUsersPerOrganization)
    throw resourceExhausted("organization " + organizationId + " already has " +
                            std::to_string(kMaxUsersPerOrganization) + " users, the limit");
  directory::insertUser(db, user);

  auto at = [&](const char* list, size_t i) {
    return field + "." + list + "[" + std::to_string(i) + "]";
  };
  if (const auto& keys = params.apiKeys)
    for (size_t i = 0; i < keys->size(); ++i) {
      const ApiKeyParameters& k = (*keys)[i];
      api_keys::addKey(db, organizationId, user.id, k.apiKeyName, k.publicKey,
                       k.curveType.value_or("API_KEY_CURVE_P256"), k.expirationSeconds, now,
                       at("apiKeys", i));
    }
  if (const auto& list = params.authenticators)
    for (size_t i = 0; i < list->size(); ++i)
      addAuthenticator(db, organizationId, user.id, (*list)[i], at("authenticators", i), now);
  if (const auto& list = params.oauthProviders)
    for (size_t i = 0; i < list->size(); ++i)
      oauth_providers::add(ctx, organizationId, user.id, (*list)[i], at("oauthProviders", i));
  if (const auto& tags = params.userTags)
    setTags(db, organizationId, user.id, *tags, field + ".userTags");
  return user;
}

}  // namespace signet::users
