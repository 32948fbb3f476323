// POST /plugins/auth-proxy/proxy_config on the coordinator: how a proxy, embedded or running
// alone, learns a configuration. The request is stamped (X-Stamp, P-256) with the proxy's
// service key, which must be one the coordinator trusts: the embedded proxy's (made in memory
// at start) or one listed in plugins.settings.auth-proxy.trustedProxyKeys. The body is
// {"configId", "timestampMs"}, the timestamp within five minutes of the coordinator's clock.
// The answer is {"config": {...}, "signerPublicKey", "sealedApiKey": {...}}, the proxy API key
// sealed to the requesting service key (sealed_key.hpp), left out while the proxy is disabled.
#pragma once

#include <memory>
#include <vector>

#include "signet/plugin.hpp"

namespace auth_proxy {

inline constexpr const char* kConfigRoute = "/proxy_config";

// Compressed P-256 public keys of the proxies this coordinator serves.
struct TrustedProxies {
  std::vector<signet::Bytes> keys;
};

signet::HttpReply serveProxyConfig(signet::RequestContext& ctx, const signet::HttpCall& call,
                                   const TrustedProxies& trusted);

}  // namespace auth_proxy
