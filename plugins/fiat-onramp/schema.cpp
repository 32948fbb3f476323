#include "schema.hpp"

namespace fiat_onramp {

// Credentials with their keys as the client sent them (the opened keys are in the keyring,
// "<id>:secret" and "<id>:private"), and the purchases started, with what the provider last
// reported and when it was last asked.
std::vector<signet::Migration> migrations() {
  return {{1,
           "fiat on-ramp credentials and transactions",
           {"CREATE TABLE fiat_onramp_credentials (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, provider TEXT NOT NULL, project_id TEXT NOT NULL, publishable_api_key TEXT NOT "
            "NULL, encrypted_secret_api_key TEXT NOT NULL, encrypted_private_api_key TEXT NOT "
            "NULL, sandbox_mode INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms "
            "BIGINT NOT NULL)",
            "CREATE INDEX fiat_onramp_credentials_organization ON fiat_onramp_credentials "
            "(organization_id, provider)",
            "CREATE TABLE fiat_onramp_transactions (id TEXT PRIMARY KEY, organization_id TEXT NOT "
            "NULL, credential_id TEXT NOT NULL, provider TEXT NOT NULL, wallet_address TEXT NOT "
            "NULL, status TEXT NOT NULL, last_error TEXT NOT NULL, created_at_ms BIGINT NOT NULL, "
            "updated_at_ms BIGINT NOT NULL, checked_at_ms BIGINT NOT NULL)",
            "CREATE INDEX fiat_onramp_transactions_pending ON fiat_onramp_transactions (status, "
            "checked_at_ms)",
            "CREATE INDEX fiat_onramp_transactions_organization ON fiat_onramp_transactions "
            "(organization_id)"}}};
}

}  // namespace fiat_onramp
