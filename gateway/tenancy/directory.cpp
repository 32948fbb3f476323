#include "directory.hpp"

#include "mfa/mfa_store.hpp"
#include "signet/error.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet {

namespace {
struct CurveInfo {
  crypto::Curve curve;
  const char* apiName;
  const char* credentialType;
};
constexpr CurveInfo kCurves[] = {
    {crypto::Curve::kP256, "API_KEY_CURVE_P256", "CREDENTIAL_TYPE_API_KEY_P256"},
    {crypto::Curve::kSecp256k1, "API_KEY_CURVE_SECP256K1", "CREDENTIAL_TYPE_API_KEY_SECP256K1"},
    {crypto::Curve::kEd25519, "API_KEY_CURVE_ED25519", "CREDENTIAL_TYPE_API_KEY_ED25519"},
};

SqlValue nullable(const std::optional<std::string>& v) {
  return v ? SqlValue(*v) : SqlValue(nullptr);
}
SqlValue nullable(const std::optional<int64_t>& v) {
  return v ? SqlValue(*v) : SqlValue(nullptr);
}

const char* kOrgColumns =
    "id, name, parent_id, root_quorum_threshold, created_at_ms, updated_at_ms, "
    "disable_email_recovery, disable_email_auth, disable_sms_auth, disable_otp_email_auth";
OrganizationRecord orgFrom(const Row& r) {
  OrganizationRecord o{r.str("id"),
                       r.str("name"),
                       r.optStr("parent_id"),
                       static_cast<int>(r.i64("root_quorum_threshold")),
                       r.i64("created_at_ms"),
                       r.i64("updated_at_ms")};
  o.flags = {r.i64("disable_email_recovery") != 0, r.i64("disable_email_auth") != 0,
             r.i64("disable_sms_auth") != 0, r.i64("disable_otp_email_auth") != 0};
  return o;
}
int64_t flag(bool b) {
  return b ? 1 : 0;
}

const char* kUserColumns =
    "id, organization_id, name, email, phone_number, created_at_ms, updated_at_ms, "
    "email_verified, phone_number_verified";
UserRecord userFrom(const Row& r) {
  return {r.str("id"),
          r.str("organization_id"),
          r.str("name"),
          r.optStr("email"),
          r.optStr("phone_number"),
          r.i64("created_at_ms"),
          r.i64("updated_at_ms"),
          r.i64("email_verified") != 0,
          r.i64("phone_number_verified") != 0};
}

const char* kKeyColumns =
    "id, organization_id, user_id, name, public_key, curve, credential_type, expires_at_ms, "
    "created_at_ms, updated_at_ms, session_profile_id, rate_budget";
ApiKeyRecord keyFrom(const Row& r) {
  return {r.str("id"),
          r.str("organization_id"),
          r.str("user_id"),
          r.str("name"),
          r.str("public_key"),
          r.str("curve"),
          r.str("credential_type"),
          r.optI64("expires_at_ms"),
          r.i64("created_at_ms"),
          r.i64("updated_at_ms"),
          r.optStr("session_profile_id"),
          r.optStr("rate_budget")};
}
std::vector<ApiKeyRecord> keysFrom(const std::vector<Row>& rows) {
  std::vector<ApiKeyRecord> out;
  for (const auto& r : rows) out.push_back(keyFrom(r));
  return out;
}

const char* kAuthenticatorColumns =
    "id, organization_id, user_id, name, credential_id, algorithm, public_key, rsa_exponent, "
    "aaguid, transports, attestation_type, sign_count, created_at_ms, updated_at_ms";
AuthenticatorRecord authenticatorFrom(const Row& r) {
  AuthenticatorRecord a;
  a.id = r.str("id");
  a.organizationId = r.str("organization_id");
  a.userId = r.str("user_id");
  a.name = r.str("name");
  a.credentialId = r.str("credential_id");
  a.algorithm = static_cast<int>(r.i64("algorithm"));
  a.publicKey = r.str("public_key");
  a.rsaExponent = r.optStr("rsa_exponent");
  a.aaguid = r.str("aaguid");
  a.transports =
      json::stringsOf(json::parseArray(r.str("transports"), "stored transports"), "transports");
  a.attestationType = r.str("attestation_type");
  a.signCount = r.i64("sign_count");
  a.createdAtMs = r.i64("created_at_ms");
  a.updatedAtMs = r.i64("updated_at_ms");
  return a;
}
std::vector<AuthenticatorRecord> authenticatorsFrom(const std::vector<Row>& rows) {
  std::vector<AuthenticatorRecord> out;
  for (const auto& r : rows) out.push_back(authenticatorFrom(r));
  return out;
}

// The record of the one row `columns` of `table` WHERE `where`, if there is one.
template <class Record>
std::optional<Record> findOne(Db& db, Record (*from)(const Row&), const char* columns,
                              const char* table, const char* where, const SqlParams& params) {
  auto row =
      db.queryOne(std::string("SELECT ") + columns + " FROM " + table + " WHERE " + where, params);
  if (!row) return std::nullopt;
  return from(*row);
}
}  // namespace

std::optional<crypto::Curve> apiKeyCurve(const std::string& name) {
  for (const auto& c : kCurves)
    if (name == c.apiName) return c.curve;
  return std::nullopt;
}

std::string apiKeyCurveName(crypto::Curve curve) {
  for (const auto& c : kCurves)
    if (c.curve == curve) return c.apiName;
  return {};
}

std::string apiKeyCredentialType(crypto::Curve curve) {
  for (const auto& c : kCurves)
    if (c.curve == curve) return c.credentialType;
  return {};
}

namespace directory {

std::optional<OrganizationRecord> findOrganization(Db& db, const std::string& id) {
  return findOne(db, orgFrom, kOrgColumns, "organizations", "id = ?", {id});
}

OrganizationRecord requireOrganization(Db& db, const std::string& id) {
  auto org = findOrganization(db, id);
  if (!org) throw notFound("organization " + id + " not found");
  return *org;
}

void insertOrganization(Db& db, const OrganizationRecord& o) {
  db.exec(
      "INSERT INTO organizations (id, name, parent_id, root_quorum_threshold, "
      "created_at_ms, updated_at_ms, disable_email_recovery, disable_email_auth, "
      "disable_sms_auth, disable_otp_email_auth) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {o.id, o.name, nullable(o.parentId), int64_t{o.rootQuorumThreshold}, o.createdAtMs,
       o.updatedAtMs, flag(o.flags.disableEmailRecovery), flag(o.flags.disableEmailAuth),
       flag(o.flags.disableSmsAuth), flag(o.flags.disableOtpEmailAuth)});
}

std::vector<std::string> rootQuorumUserIds(Db& db, const std::string& organizationId) {
  std::vector<std::string> out;
  for (const auto& r : db.query("SELECT user_id FROM root_quorum_members WHERE organization_id "
                                "= ? ORDER BY user_id",
                                {organizationId}))
    out.push_back(r.str("user_id"));
  return out;
}

void addRootQuorumMember(Db& db, const std::string& organizationId, const std::string& userId) {
  db.exec("INSERT INTO root_quorum_members (organization_id, user_id) VALUES (?, ?)",
          {organizationId, userId});
}

void setRootQuorum(Db& db, const std::string& organizationId,
                   const std::vector<std::string>& userIds, int threshold, int64_t nowMs) {
  db.exec("DELETE FROM root_quorum_members WHERE organization_id = ?", {organizationId});
  for (const auto& u : userIds) addRootQuorumMember(db, organizationId, u);
  db.exec("UPDATE organizations SET root_quorum_threshold = ?, updated_at_ms = ? WHERE id = ?",
          {int64_t{threshold}, nowMs, organizationId});
}

void renameOrganization(Db& db, const std::string& organizationId, const std::string& name,
                        int64_t nowMs) {
  db.exec("UPDATE organizations SET name = ?, updated_at_ms = ? WHERE id = ?",
          {name, nowMs, organizationId});
}

std::vector<std::string> subOrganizationIds(Db& db, const std::string& parentId) {
  std::vector<std::string> out;
  for (const auto& r : db.query("SELECT id FROM organizations WHERE parent_id = ?", {parentId}))
    out.push_back(r.str("id"));
  return out;
}

void deleteOrganization(Db& db, const std::string& organizationId) {
  SqlParams p{organizationId};
  db.exec(
      "DELETE FROM user_tag_members WHERE tag_id IN (SELECT id FROM user_tags WHERE "
      "organization_id = ?)",
      p);
  // Keyed by activity (core_schema.cpp), so found through the organization's activities.
  for (const char* table : {"mfa_presentations", "policy_evaluations"})
    db.exec(std::string("DELETE FROM ") + table +
                " WHERE activity_id IN (SELECT id FROM activities WHERE organization_id = ?)",
            p);
  for (const char* table :
       {"user_tags", "oauth_providers", "api_keys", "authenticators", "users", "policies",
        "root_quorum_members", "organization_features", "activities", "mfa_policies",
        "mfa_statuses", "invitations", "ip_allowlists", "vote_users"})
    db.exec(std::string("DELETE FROM ") + table + " WHERE organization_id = ?", p);
  db.exec("DELETE FROM organizations WHERE id = ?", p);
}

std::optional<UserRecord> findUser(Db& db, const std::string& organizationId,
                                   const std::string& userId) {
  return findOne(db, userFrom, kUserColumns, "users", "organization_id = ? AND id = ?",
                 {organizationId, userId});
}

UserRecord requireUser(Db& db, const std::string& organizationId, const std::string& userId) {
  auto user = findUser(db, organizationId, userId);
  if (!user) throw notFound("user " + userId + " not found in organization " + organizationId);
  return *user;
}

std::optional<UserRecord> findUserById(Db& db, const std::string& userId) {
  return findOne(db, userFrom, kUserColumns, "users", "id = ?", {userId});
}

std::optional<UserRecord> findUserByContact(Db& db, const std::string& organizationId,
                                            const std::string& otpType,
                                            const std::string& contact) {
  bool email = otpType == "OTP_TYPE_EMAIL";
  std::optional<UserRecord> found;
  for (auto& u : listUsers(db, organizationId)) {
    bool match = email ? (u.email && asciiLower(*u.email) == asciiLower(contact))
                       : (u.phoneNumber && *u.phoneNumber == contact);
    if (!match) continue;
    bool verified = email ? u.emailVerified : u.phoneNumberVerified;
    if (verified) return u;
    if (!found) found = u;
  }
  return found;
}

void insertUser(Db& db, const UserRecord& u) {
  db.exec(
      "INSERT INTO users (id, organization_id, name, email, phone_number, created_at_ms, "
      "updated_at_ms, email_verified, phone_number_verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
      "?)",
      {u.id, u.organizationId, u.name, nullable(u.email), nullable(u.phoneNumber), u.createdAtMs,
       u.updatedAtMs, flag(u.emailVerified), flag(u.phoneNumberVerified)});
}

void updateUser(Db& db, const UserRecord& u) {
  db.exec(
      "UPDATE users SET name = ?, email = ?, phone_number = ?, updated_at_ms = ?, "
      "email_verified = ?, phone_number_verified = ? WHERE organization_id = ? AND id = ?",
      {u.name, nullable(u.email), nullable(u.phoneNumber), u.updatedAtMs, flag(u.emailVerified),
       flag(u.phoneNumberVerified), u.organizationId, u.id});
}

std::vector<UserRecord> listUsers(Db& db, const std::string& organizationId) {
  std::vector<UserRecord> out;
  for (const auto& r : db.query(std::string("SELECT ") + kUserColumns +
                                    " FROM users WHERE organization_id = ? ORDER BY "
                                    "created_at_ms, id",
                                {organizationId}))
    out.push_back(userFrom(r));
  return out;
}

size_t countUsers(Db& db, const std::string& organizationId) {
  return static_cast<size_t>(
      db.queryOne("SELECT COUNT(*) AS n FROM users WHERE organization_id = ?", {organizationId})
          ->i64("n"));
}

void deleteUser(Db& db, const std::string& organizationId, const std::string& userId) {
  SqlParams p{organizationId, userId};
  db.exec(
      "DELETE FROM ip_allowlists WHERE organization_id = ? AND public_key IN (SELECT public_key "
      "FROM api_keys WHERE organization_id = ? AND user_id = ?)",
      {organizationId, organizationId, userId});
  db.exec("DELETE FROM api_keys WHERE organization_id = ? AND user_id = ?", p);
  db.exec("DELETE FROM authenticators WHERE organization_id = ? AND user_id = ?", p);
  db.exec("DELETE FROM oauth_providers WHERE organization_id = ? AND user_id = ?", p);
  db.exec("DELETE FROM mfa_policies WHERE organization_id = ? AND user_id = ?", p);
  db.exec(
      "DELETE FROM user_tag_members WHERE user_id = ? AND tag_id IN (SELECT id FROM "
      "user_tags WHERE organization_id = ?)",
      {userId, organizationId});
  db.exec("DELETE FROM users WHERE organization_id = ? AND id = ?", p);
}

std::vector<std::string> tagIdsOfUser(Db& db, const std::string& userId) {
  std::vector<std::string> out;
  for (const auto& r :
       db.query("SELECT tag_id FROM user_tag_members WHERE user_id = ? ORDER BY tag_id", {userId}))
    out.push_back(r.str("tag_id"));
  return out;
}

void insertApiKey(Db& db, const ApiKeyRecord& k) {
  db.exec(
      "INSERT INTO api_keys (id, organization_id, user_id, name, public_key, curve, "
      "credential_type, expires_at_ms, created_at_ms, updated_at_ms, session_profile_id) VALUES "
      "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {k.id, k.organizationId, k.userId, k.name, k.publicKey, k.curve, k.credentialType,
       nullable(k.expiresAtMs), k.createdAtMs, k.updatedAtMs, nullable(k.sessionProfileId)});
}

std::vector<ApiKeyRecord> apiKeysByPublicKey(Db& db, const std::string& publicKey) {
  return keysFrom(db.query(
      std::string("SELECT ") + kKeyColumns + " FROM api_keys WHERE public_key = ?", {publicKey}));
}

std::optional<ApiKeyRecord> findApiKeyOfUser(Db& db, const std::string& userId,
                                             const std::string& publicKey) {
  return findOne(db, keyFrom, kKeyColumns, "api_keys", "user_id = ? AND public_key = ?",
                 {userId, publicKey});
}

std::optional<AuthenticatorRecord> findAuthenticatorOfUser(Db& db, const std::string& userId,
                                                           const std::string& publicKey) {
  return findOne(db, authenticatorFrom, kAuthenticatorColumns, "authenticators",
                 "user_id = ? AND public_key = ?", {userId, publicKey});
}

std::vector<ApiKeyRecord> apiKeysOfUser(Db& db, const std::string& organizationId,
                                        const std::string& userId) {
  return keysFrom(db.query(std::string("SELECT ") + kKeyColumns +
                               " FROM api_keys WHERE organization_id = ? AND user_id = ? "
                               "ORDER BY created_at_ms, id",
                           {organizationId, userId}));
}

std::vector<ApiKeyRecord> apiKeysOfOrganization(Db& db, const std::string& organizationId) {
  return keysFrom(
      db.query(std::string("SELECT ") + kKeyColumns +
                   " FROM api_keys WHERE organization_id = ? ORDER BY created_at_ms, id",
               {organizationId}));
}

std::optional<ApiKeyRecord> findApiKey(Db& db, const std::string& organizationId,
                                       const std::string& apiKeyId) {
  return findOne(db, keyFrom, kKeyColumns, "api_keys", "organization_id = ? AND id = ?",
                 {organizationId, apiKeyId});
}

size_t deleteApiKey(Db& db, const std::string& organizationId, const std::string& apiKeyId) {
  // The key's own IP allowlist goes with it: a key registered again later starts without one.
  db.exec(
      "DELETE FROM ip_allowlists WHERE organization_id = ? AND public_key IN (SELECT public_key "
      "FROM api_keys WHERE organization_id = ? AND id = ?)",
      {organizationId, organizationId, apiKeyId});
  return db.exec("DELETE FROM api_keys WHERE organization_id = ? AND id = ?",
                 {organizationId, apiKeyId});
}

void insertAuthenticator(Db& db, const AuthenticatorRecord& a) {
  db.exec(
      "INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, "
      "algorithm, public_key, rsa_exponent, aaguid, transports, attestation_type, "
      "sign_count, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?)",
      {a.id, a.organizationId, a.userId, a.name, a.credentialId, int64_t{a.algorithm}, a.publicKey,
       nullable(a.rsaExponent), a.aaguid, json::stringify(json::stringArray(a.transports)),
       a.attestationType, a.signCount, a.createdAtMs, a.updatedAtMs});
}

std::vector<AuthenticatorRecord> authenticatorsByCredentialId(Db& db,
                                                              const std::string& credentialId) {
  return authenticatorsFrom(db.query(std::string("SELECT ") + kAuthenticatorColumns +
                                         " FROM authenticators WHERE credential_id = ?",
                                     {credentialId}));
}

std::vector<AuthenticatorRecord> authenticatorsOfUser(Db& db, const std::string& organizationId,
                                                      const std::string& userId) {
  return authenticatorsFrom(db.query(std::string("SELECT ") + kAuthenticatorColumns +
                                         " FROM authenticators WHERE organization_id = ? AND "
                                         "user_id = ? ORDER BY created_at_ms, id",
                                     {organizationId, userId}));
}

void updateSignCount(Db& db, const std::string& authenticatorId, int64_t signCount) {
  db.exec("UPDATE authenticators SET sign_count = ? WHERE id = ?", {signCount, authenticatorId});
}

std::optional<AuthenticatorRecord> findAuthenticator(Db& db, const std::string& organizationId,
                                                     const std::string& authenticatorId) {
  return findOne(db, authenticatorFrom, kAuthenticatorColumns, "authenticators",
                 "organization_id = ? AND id = ?", {organizationId, authenticatorId});
}

size_t deleteAuthenticator(Db& db, const std::string& organizationId, const std::string& id) {
  return db.exec("DELETE FROM authenticators WHERE organization_id = ? AND id = ?",
                 {organizationId, id});
}

}  // namespace directory

json::Object apiKeyJson(const ApiKeyRecord& key) {
  json::Object credential = json::object();
  credential->set("publicKey", key.publicKey);
  credential->set("type", key.credentialType);
  json::Object o = json::object();
  o->set("credential", credential);
  o->set("apiKeyId", key.id);
  o->set("apiKeyName", key.name);
  o->set("createdAt", json::timestamp(key.createdAtMs));
  o->set("updatedAt", json::timestamp(key.updatedAtMs));
  if (key.expiresAtMs)
    o->set("expirationSeconds", std::to_string((*key.expiresAtMs - key.createdAtMs) / 1000));
  return o;
}

json::Object authenticatorJson(const AuthenticatorRecord& a) {
  json::Object credential = json::object();
  credential->set("publicKey", a.publicKey);
  credential->set("type", "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR");
  json::Object o = json::object();
  o->set("transports", json::stringArray(a.transports));
  o->set("attestationType", a.attestationType);
  o->set("aaguid", a.aaguid);
  o->set("credentialId", a.credentialId);
  o->set("model", "");
  o->set("credential", credential);
  o->set("authenticatorId", a.id);
  o->set("authenticatorName", a.name);
  o->set("createdAt", json::timestamp(a.createdAtMs));
  o->set("updatedAt", json::timestamp(a.updatedAtMs));
  return o;
}

json::Object userJson(Db& db, const UserRecord& user) {
  json::Object o = json::object();
  o->set("userId", user.id);
  o->set("userName", user.name);
  if (user.email) o->set("userEmail", *user.email);
  if (user.phoneNumber) o->set("userPhoneNumber", *user.phoneNumber);
  json::Array authenticators = json::array();
  for (const auto& a : directory::authenticatorsOfUser(db, user.organizationId, user.id))
    authenticators->add(authenticatorJson(a));
  json::Array keys = json::array();
  for (const auto& k : directory::apiKeysOfUser(db, user.organizationId, user.id))
    keys->add(apiKeyJson(k));
  o->set("authenticators", authenticators);
  o->set("apiKeys", keys);
  o->set("userTags", json::stringArray(directory::tagIdsOfUser(db, user.id)));
  o->set("oauthProviders", oauth_providers::ofUser(db, user.organizationId, user.id));
  json::Array mfaPolicies = json::array();
  for (const auto& p : mfa::policiesOfUser(db, user.id)) mfaPolicies->add(mfa::policyJson(p));
  o->set("mfaPolicies", mfaPolicies);
  o->set("createdAt", json::timestamp(user.createdAtMs));
  o->set("updatedAt", json::timestamp(user.updatedAtMs));
  return o;
}

}  // namespace signet
