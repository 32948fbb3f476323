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

struct OrganizationRecord {
  std::string id;
  std::string name;
  std::optional<std::string> parentId;
  int rootQuorumThreshold = 1;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

struct UserRecord {
  std::string id;
  std::string organizationId;
  std::string name;
  std::optional<std::string> email;
  std::optional<std::string> phoneNumber;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
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

std::optional<UserRecord> findUser(Db& db, const std::string& organizationId,
                                   const std::string& userId);
UserRecord requireUser(Db& db, const std::string& organizationId, const std::string& userId);
void insertUser(Db& db, const UserRecord& user);

void insertApiKey(Db& db, const ApiKeyRecord& key);
std::vector<ApiKeyRecord> apiKeysByPublicKey(Db& db, const std::string& publicKey);
std::vector<ApiKeyRecord> apiKeysOfUser(Db& db, const std::string& organizationId,
                                        const std::string& userId);
std::optional<ApiKeyRecord> findApiKey(Db& db, const std::string& organizationId,
                                       const std::string& apiKeyId);
size_t deleteApiKey(Db& db, const std::string& organizationId, const std::string& apiKeyId);

void insertAuthenticator(Db& db, const AuthenticatorRecord& a);
std::vector<AuthenticatorRecord> authenticatorsByCredentialId(Db& db,
                                                              const std::string& credentialId);
std::vector<AuthenticatorRecord> authenticatorsOfUser(Db& db, const std::string& organizationId,
                                                      const std::string& userId);
void updateSignCount(Db& db, const std::string& authenticatorId, int64_t signCount);

}  // namespace directory

json::Object apiKeyJson(const ApiKeyRecord& key);
json::Object authenticatorJson(const AuthenticatorRecord& a);
json::Object userJson(Db& db, const UserRecord& user);

}  // namespace signet
