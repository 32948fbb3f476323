#include "schema.hpp"

#include "oauth2_credentials.hpp"

namespace sessions {

std::vector<signet::Migration> migrations() {
  return {{1,
           "OTP codes and session profiles",
           {"CREATE TABLE session_otps (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "otp_type TEXT NOT NULL, contact TEXT NOT NULL, purpose TEXT NOT NULL, rate_key TEXT "
            "NOT NULL, attempts INTEGER NOT NULL, used INTEGER NOT NULL, has_target_key INTEGER "
            "NOT NULL, secrets_erased INTEGER NOT NULL, expires_at_ms BIGINT NOT NULL, "
            "created_at_ms BIGINT NOT NULL)",
            "CREATE INDEX session_otps_rate ON session_otps (organization_id, rate_key, "
            "created_at_ms)",
            "CREATE TABLE session_profiles (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT NOT NULL, scope TEXT NOT NULL, expiration_seconds BIGINT, notes TEXT, "
            "created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE UNIQUE INDEX session_profiles_name ON session_profiles (organization_id, "
            "name)"}},
          {2,
           "OAuth 2.0 credentials (client secrets sealed in the keyring) and spent codes",
           {"CREATE TABLE oauth2_credentials (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "provider TEXT NOT NULL, client_id TEXT NOT NULL, encrypted_client_secret TEXT NOT "
            "NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
            "CREATE INDEX oauth2_credentials_org ON oauth2_credentials (organization_id)",
            // SHA-256 of (credential id, code): a code is exchanged once, even if the provider
            // would take it twice.
            "CREATE TABLE oauth2_spent_codes (code_hash TEXT PRIMARY KEY, spent_at_ms BIGINT NOT "
            "NULL)"}},
          {3,
           "Email events: what the transport reported of each email sent (email_events.hpp)",
           {"CREATE TABLE session_email_events (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, message_id TEXT NOT NULL, event_type TEXT NOT NULL, from_address TEXT NOT "
            "NULL, to_address TEXT NOT NULL, details TEXT NOT NULL, created_at_ms BIGINT NOT NULL)",
            "CREATE INDEX session_email_events_recipient ON session_email_events "
            "(organization_id, to_address, created_at_ms, id)"}}};
}

void deleteOrganization(signet::ActivityContext& ctx, const std::string& organizationId, bool) {
  deleteOrganizationOtps(ctx, organizationId);
  ctx.db().exec("DELETE FROM session_profiles WHERE organization_id = ?", {organizationId});
  oauth2Credentials().removeAllOf(ctx.db(), ctx.keyring(), organizationId);
  ctx.db().exec("DELETE FROM session_email_events WHERE organization_id = ?", {organizationId});
}

}  // namespace sessions
