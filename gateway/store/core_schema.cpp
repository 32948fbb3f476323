#include "core_schema.hpp"

#include "keyring.hpp"

namespace signet {

std::vector<Migration> coreMigrations() {
  return {
      {1,
       "organizations, users, root quorum",
       {"CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, parent_id TEXT, "
        "root_quorum_threshold INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms "
        "BIGINT NOT NULL)",
        "CREATE INDEX organizations_parent ON organizations (parent_id)",
        "CREATE TABLE users (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, name TEXT NOT "
        "NULL, email TEXT, phone_number TEXT, created_at_ms BIGINT NOT NULL, updated_at_ms "
        "BIGINT NOT NULL)",
        "CREATE INDEX users_organization ON users (organization_id)",
        "CREATE TABLE root_quorum_members (organization_id TEXT NOT NULL, user_id TEXT NOT "
        "NULL, PRIMARY KEY (organization_id, user_id))"}},
      {2,
       "credentials: API keys and WebAuthn authenticators",
       {"CREATE TABLE api_keys (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, user_id "
        "TEXT NOT NULL, name TEXT NOT NULL, public_key TEXT NOT NULL, curve TEXT NOT NULL, "
        "credential_type TEXT NOT NULL, expires_at_ms BIGINT, created_at_ms BIGINT NOT NULL, "
        "updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX api_keys_organization_key ON api_keys (organization_id, public_key)",
        "CREATE INDEX api_keys_public_key ON api_keys (public_key)",
        "CREATE INDEX api_keys_user ON api_keys (user_id)",
        "CREATE TABLE authenticators (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
        "user_id TEXT NOT NULL, name TEXT NOT NULL, credential_id TEXT NOT NULL, algorithm "
        "INTEGER NOT NULL, public_key TEXT NOT NULL, rsa_exponent TEXT, aaguid TEXT NOT NULL, "
        "transports TEXT NOT NULL, attestation_type TEXT NOT NULL, sign_count BIGINT NOT NULL, "
        "created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX authenticators_organization_credential ON authenticators "
        "(organization_id, credential_id)",
        "CREATE INDEX authenticators_credential ON authenticators (credential_id)",
        "CREATE INDEX authenticators_user ON authenticators (user_id)"}},
      {3,
       "activities",
       {"CREATE TABLE activities (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, type TEXT "
        "NOT NULL, status TEXT NOT NULL, fingerprint TEXT NOT NULL, intent TEXT NOT NULL, result "
        "TEXT, votes TEXT NOT NULL, failure TEXT, app_proofs TEXT, created_at_ms BIGINT NOT "
        "NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX activities_fingerprint ON activities (fingerprint)",
        "CREATE INDEX activities_organization_created ON activities (organization_id, "
        "created_at_ms, id)"}},
      keyringMigration(4),
      {5,
       "gateway settings (the signer's public key and other singletons)",
       {"CREATE TABLE gateway_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)"}},
  };
}

}  // namespace signet
