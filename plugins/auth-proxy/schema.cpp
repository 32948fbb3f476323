#include "schema.hpp"

namespace auth_proxy {

// One configuration per organization. The proxy API key's private half is not here: it is
// sealed in the keyring under "auth-proxy-key:<config_id>" (api_key_id is empty while the proxy
// is disabled, when no key exists). The settings are the validated fields of
// update_auth_proxy_config, as one JSON object.
std::vector<signet::Migration> migrations() {
  return {{1,
           "auth proxy configurations",
           {"CREATE TABLE auth_proxy_configs (config_id TEXT PRIMARY KEY, "
            "organization_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, "
            "policy_id TEXT NOT NULL, api_key_id TEXT NOT NULL, api_public_key TEXT NOT NULL, "
            "enabled INTEGER NOT NULL, settings TEXT NOT NULL, created_at_ms BIGINT NOT NULL, "
            "updated_at_ms BIGINT NOT NULL)"}},
          // The proxy's key is charged to a budget of its own (IdentityServices::
          // setApiKeyRateBudget). Keys issued before that existed are marked here: the core's
          // migrations, which add the column, run before any plugin's.
          {2,
           "proxy keys charged to the auth-proxy budget, not the organization's",
           {"UPDATE api_keys SET rate_budget = 'auth-proxy' WHERE id IN (SELECT api_key_id FROM "
            "auth_proxy_configs WHERE api_key_id <> '')"}}};
}

}  // namespace auth_proxy
