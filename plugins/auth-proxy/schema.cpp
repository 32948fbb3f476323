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
            "updated_at_ms BIGINT NOT NULL)"}}};
}

}  // namespace auth_proxy
