#include "config_store.hpp"

namespace auth_proxy {

using namespace signet;

namespace {
const char* kColumns =
    "config_id, organization_id, user_id, policy_id, api_key_id, api_public_key, enabled, "
    "settings, created_at_ms, updated_at_ms";

std::optional<ProxyConfig> one(Db& db, const std::string& where, const std::string& value) {
  auto row = db.queryOne(
      std::string("SELECT ") + kColumns + " FROM auth_proxy_configs WHERE " + where + " = ?",
      {value});
  if (!row) return std::nullopt;
  ProxyConfig c;
  c.configId = row->str("config_id");
  c.organizationId = row->str("organization_id");
  c.userId = row->str("user_id");
  c.policyId = row->str("policy_id");
  c.apiKeyId = row->str("api_key_id");
  c.apiPublicKey = row->str("api_public_key");
  c.enabled = row->i64("enabled") != 0;
  c.settings = json::parseObject(row->str("settings"), "stored auth proxy settings");
  c.createdAtMs = row->i64("created_at_ms");
  c.updatedAtMs = row->i64("updated_at_ms");
  return c;
}
}  // namespace

const SealedCredentials& proxyConfigs() {
  // One per organization (enable_auth_proxy reuses it), so no bound of its own.
  static const SealedCredentials store{
      .table = "auth_proxy_configs",
      .idColumn = "config_id",
      .noun = "auth proxy configuration",
      .maxPerOrganization = 0,
      .parts = {{.prefix = "auth-proxy-key:", .suffix = "", .kind = "p256-private-key"}}};
  return store;
}

const SealedCredentials::Part& proxyKeyPart() {
  return proxyConfigs().parts[0];
}

std::optional<ProxyConfig> configOfOrganization(Db& db, const std::string& organizationId) {
  return one(db, "organization_id", organizationId);
}

std::optional<ProxyConfig> configById(Db& db, const std::string& configId) {
  return one(db, "config_id", configId);
}

void insertConfig(Db& db, const ProxyConfig& c) {
  db.exec(std::string("INSERT INTO auth_proxy_configs (") + kColumns +
              ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {c.configId, c.organizationId, c.userId, c.policyId, c.apiKeyId, c.apiPublicKey,
           int64_t(c.enabled ? 1 : 0), json::stringify(c.settings), c.createdAtMs, c.updatedAtMs});
}

void updateConfig(Db& db, const ProxyConfig& c) {
  db.exec(
      "UPDATE auth_proxy_configs SET api_key_id = ?, api_public_key = ?, enabled = ?, "
      "settings = ?, updated_at_ms = ? WHERE config_id = ?",
      {c.apiKeyId, c.apiPublicKey, int64_t(c.enabled ? 1 : 0), json::stringify(c.settings),
       c.updatedAtMs, c.configId});
}

json::Object configJson(const ProxyConfig& c) {
  json::Object o = json::object();
  o->set("configId", c.configId);
  o->set("organizationId", c.organizationId);
  o->set("userId", c.userId);
  o->set("policyId", c.policyId);
  o->set("enabled", c.enabled);
  if (c.enabled) o->set("apiPublicKey", c.apiPublicKey);
  o->set("settings", c.settings);
  o->set("createdAt", json::timestamp(c.createdAtMs));
  o->set("updatedAt", json::timestamp(c.updatedAtMs));
  return o;
}

}  // namespace auth_proxy
