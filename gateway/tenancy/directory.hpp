// Organizations, users and credentials as stored by the core: the records, their lookups and
// their JSON shapes (v1User, v1ApiKey, v1Authenticator of the OpenAPI document).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/db.hpp"
#include "signet/json.hpp"

namespace signet {

// The disable* switches of create_sub_organization.
struct OrganizationFlags {
  bool disableEmailRecovery = false;
  bool disableEmailAuth = false;
  bool disableSmsAuth = false;
  bool disableOtpEmailAuth = false;
};

struct OrganizationRecord {
  std::string id;
  std::string name;
  std::optional<std::string> parentId;
  int rootQuorumThreshold = 1;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
  OrganizationFlags flags;
};

struct UserRecord {
  std::string id;
  std::string organizationId;
  std::string name;
  std::optional<std::string> email;
  std::optional<std::string> phoneNumber;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
  bool emailVerified = false;
  bool phoneNumberVerified = false;
};

struct ApiKeyRecord {
  std::string id;
  std::string organizationId;
  std::string userId;
  std::string name;
  std::string publicKey;       // canonical hex (compressed EC point or Ed25519 key)
  std::string curve;           // API_KEY_CURVE_*
  std::string credentialType;  // CREDENTIAL_TYPE_*
  std::optional<int64_t> expiresAtMs;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
  // A session's key: the session profile whose scope it acts within (none: the default one).
  std::optional<std::string> sessionProfileId = std::nullopt;
  // A service's key (IdentityServices::setApiKeyRateBudget): the budget its requests are charged
  // to instead of the organization's.
  std::optional<std::string> rateBudget = std::nullopt;
};

struct AuthenticatorRecord {
  std::string id;
  std::string organizationId;
  std::string userId;
  std::string name;
  std::string credentialId;  // base64url of the raw id
  int algorithm = -7;        // COSE: -7 ES256, -257 RS256
  std::string publicKey;     // ES256: compressed P-256 hex; RS256: modulus hex
  std::optional<std::string> rsaExponent;
  std::string aaguid;
  std::vector<std::string> transports;
  std::string attestationType = "none";
  int64_t signCount = 0;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

// API_KEY_CURVE_* <-> curve and credential type.
std::optional<crypto::Curve> apiKeyCurve(const std::string& name);
std::string apiKeyCurveName(crypto::Curve curve);
std::string apiKeyCredentialType(crypto::Curve curve);

namespace directory {

std::optional<OrganizationRecord> findOrganization(Db& db, const std::string& id);
OrganizationRecord requireOrganization(Db& db, const std::string& id);
void insertOrganization(Db& db, const OrganizationRecord& org);
std::vector<std::string> rootQuorumUserIds(Db& db, const std::string& organizationId);
void addRootQuorumMember(Db& db, const std::string& organizationId, const std::string& userId);
// Replaces the whole root quorum.
void setRootQuorum(Db& db, const std::string& organizationId,
                   const std::vector<std::string>& userIds, int threshold, int64_t nowMs);
void renameOrganization(Db& db, const std::string& organizationId, const std::string& name,
                        int64_t nowMs);
std::vector<std::string> subOrganizationIds(Db& db, const std::string& parentId);
// Removes an organization and every core record in it (users, credentials, tags, providers,
// features, quorum, activities).
void deleteOrganization(Db& db, const std::string& organizationId);

std::optional<UserRecord> findUser(Db& db, const std::string& organizationId,
                                   const std::string& userId);
// A user by id alone, in whichever organization (a vote names its voter so).
std::optional<UserRecord> findUserById(Db& db, const std::string& userId);
UserRecord requireUser(Db& db, const std::string& organizationId, const std::string& userId);
// The user whose email (OTP_TYPE_EMAIL, case-insensitive) or phone number (OTP_TYPE_SMS) is
// `contact`; a verified contact wins over an unverified one.
std::optional<UserRecord> findUserByContact(Db& db, const std::string& organizationId,
                                            const std::string& otpType, const std::string& contact);
void insertUser(Db& db, const UserRecord& user);
void updateUser(Db& db, const UserRecord& user);
std::vector<UserRecord> listUsers(Db& db, const std::string& organizationId);
size_t countUsers(Db& db, const std::string& organizationId);
// Removes a user and their credentials, providers and tag memberships.
void deleteUser(Db& db, const std::string& organizationId, const std::string& userId);

void insertApiKey(Db& db, const ApiKeyRecord& key);
std::vector<ApiKeyRecord> apiKeysByPublicKey(Db& db, const std::string& publicKey);
std::vector<ApiKeyRecord> apiKeysOfUser(Db& db, const std::string& organizationId,
                                        const std::string& userId);
std::vector<ApiKeyRecord> apiKeysOfOrganization(Db& db, const std::string& organizationId);
std::optional<ApiKeyRecord> findApiKey(Db& db, const std::string& organizationId,
                                       const std::string& apiKeyId);
// The credential a stamp or a vote names: the user's API key (or session key) with that public
// key, or their authenticator with that public key.
std::optional<ApiKeyRecord> findApiKeyOfUser(Db& db, const std::string& userId,
                                             const std::string& publicKey);
std::optional<AuthenticatorRecord> findAuthenticatorOfUser(Db& db, const std::string& userId,
                                                           const std::string& publicKey);
size_t deleteApiKey(Db& db, const std::string& organizationId, const std::string& apiKeyId);

void insertAuthenticator(Db& db, const AuthenticatorRecord& a);
std::vector<AuthenticatorRecord> authenticatorsByCredentialId(Db& db,
                                                              const std::string& credentialId);
std::vector<AuthenticatorRecord> authenticatorsOfUser(Db& db, const std::string& organizationId,
                                                      const std::string& userId);
void updateSignCount(Db& db, const std::string& authenticatorId, int64_t signCount);
std::optional<AuthenticatorRecord> findAuthenticator(Db& db, const std::string& organizationId,
                                                     const std::string& authenticatorId);
size_t deleteAuthenticator(Db& db, const std::string& organizationId, const std::string& id);

std::vector<std::string> tagIdsOfUser(Db& db, const std::string& userId);

}  // namespace directory

json::Object apiKeyJson(const ApiKeyRecord& key);
json::Object authenticatorJson(const AuthenticatorRecord& a);
json::Object userJson(Db& db, const UserRecord& user);

}  // namespace signet
