// The operator's side, in the coordinator: enable_auth_proxy, update_auth_proxy_config,
// disable_auth_proxy and get_auth_proxy_config, each for the organization the request targets
// (the parent organization of the sub-organizations its users sign up into).
#pragma once

#include "proxy_settings.hpp"
#include "signet/plugin.hpp"

namespace auth_proxy {

// Creates (once) the proxy user and its policy, and a fresh P-256 proxy API key whose private
// half is sealed in the keyring. Returns {userId, configId}. Enabling an enabled proxy returns
// the same ids and changes nothing.
signet::json::Object enableAuthProxy(signet::ActivityContext& ctx, const signet::json::Object& p);
// Applies the settings (proxy_settings.hpp); returns {configId}.
signet::json::Object updateAuthProxyConfig(signet::ActivityContext& ctx,
                                           const ProxySettingsParameters& p);
// Deletes the proxy API key (the user, its policy and the settings stay for a later enable).
signet::json::Object disableAuthProxy(signet::ActivityContext& ctx, const signet::json::Object& p);
// {config: {...}} (config_store.hpp configJson), never the key.
signet::json::Object getAuthProxyConfig(signet::RequestContext& ctx, const signet::json::Object& b);
// Removes a deleted organization's configuration and its sealed key.
void forgetOrganization(signet::ActivityContext& ctx, const std::string& organizationId, bool);

}  // namespace auth_proxy
