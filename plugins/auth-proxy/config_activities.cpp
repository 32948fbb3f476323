#include "config_activities.hpp"

#include "config_store.hpp"
#include "proxy_policy.hpp"
#include "proxy_settings.hpp"

namespace auth_proxy {

using namespace signet;

namespace {

ProxyConfig requireConfig(RequestContext& ctx) {
  auto c = configOfOrganization(ctx.db(), ctx.organizationId());
  if (!c)
    throw failedPrecondition("the auth proxy was never enabled for organization " +
                             ctx.organizationId() + ": run enable_auth_proxy first");
  return *c;
}

const IdentityServices& identity(RequestContext& ctx) {
  return ctx.services().identity;
}

std::string createProxyUser(ActivityContext& ctx) {
  json::Object user = json::object();
  user->set("userName", "Auth Proxy");
  user->set("apiKeys", json::array());
  user->set("authenticators", json::array());
  user->set("oauthProviders", json::array());
  user->set("userTags", json::array());
  json::Array users = json::array();
  users->add(user);
  json::Object params = json::object();
  params->set("users", users);
  return identity(ctx).createUsers(ctx, params)->getArray("userIds")->getElement<std::string>(0);
}

// A fresh key for the proxy user, registered and sealed; sets apiKeyId and apiPublicKey.
void issueProxyKey(ActivityContext& ctx, ProxyConfig& c) {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  json::Object key = json::object();
  key->set("apiKeyName", "auth-proxy " + c.configId);
  key->set("publicKey", pub);
  key->set("curveType", "API_KEY_CURVE_P256");
  json::Array keys = json::array();
  keys->add(key);
  json::Object params = json::object();
  params->set("userId", c.userId);
  params->set("apiKeys", keys);
  c.apiKeyId =
      identity(ctx).createApiKeys(ctx, params)->getArray("apiKeyIds")->getElement<std::string>(0);
  // What strangers make the proxy ask is charged to the proxy's budget, never the organization's.
  identity(ctx).setApiKeyRateBudget(ctx, c.apiKeyId, kAuthProxyBudget);
  c.apiPublicKey = pub;
  proxyConfigs().seal(ctx.keyring(), proxyKeyPart(), c.configId, priv);
}

}  // namespace

json::Object enableAuthProxy(ActivityContext& ctx, const json::Object&) {
  auto existing = configOfOrganization(ctx.db(), ctx.organizationId());
  ProxyConfig c;
  if (existing) {
    c = *existing;
  } else {
    c.configId = ctx.newId();
    c.organizationId = ctx.organizationId();
    c.userId = createProxyUser(ctx);
    c.policyId = identity(ctx)
                     .createPolicy(ctx, proxyPolicyParameters(c.userId, c.configId))
                     ->getValue<std::string>("policyId");
    c.settings = json::object();
    c.createdAtMs = ctx.nowMs();
  }
  if (!c.enabled) {
    issueProxyKey(ctx, c);
    c.enabled = true;
    c.updatedAtMs = ctx.nowMs();
    if (existing)
      updateConfig(ctx.db(), c);
    else
      insertConfig(ctx.db(), c);
  }
  json::Object r = json::object();
  r->set("userId", c.userId);
  r->set("configId", c.configId);
  return r;
}

json::Object updateAuthProxyConfig(ActivityContext& ctx, const ProxySettingsParameters& p) {
  ProxyConfig c = requireConfig(ctx);
  c.settings = applySettings(c.settings, p);
  c.updatedAtMs = ctx.nowMs();
  updateConfig(ctx.db(), c);
  json::Object r = json::object();
  r->set("configId", c.configId);
  return r;
}

json::Object disableAuthProxy(ActivityContext& ctx, const json::Object&) {
  ProxyConfig c = requireConfig(ctx);
  if (!c.enabled)
    throw failedPrecondition("the auth proxy of organization " + ctx.organizationId() +
                             " is already disabled");
  identity(ctx).deleteSessionKey(ctx, c.organizationId, c.userId, c.apiKeyId);
  proxyConfigs().erase(ctx.keyring(), proxyKeyPart(), c.configId);
  c.enabled = false;
  c.apiKeyId.clear();
  c.apiPublicKey.clear();
  c.updatedAtMs = ctx.nowMs();
  updateConfig(ctx.db(), c);
  return json::object();
}

json::Object getAuthProxyConfig(RequestContext& ctx, const json::Object&) {
  json::Object r = json::object();
  r->set("config", configJson(requireConfig(ctx)));
  return r;
}

void forgetOrganization(ActivityContext& ctx, const std::string& organizationId, bool) {
  proxyConfigs().removeAllOf(ctx.db(), ctx.keyring(), organizationId);
}

}  // namespace auth_proxy
