// The proxy itself: what happens to each request on its listener, in order.
//   1. A preflight (OPTIONS) is answered at once: it carries no config id.
//   2. X-Auth-Proxy-Config-Id (any case) names the configuration; an unknown one is refused.
//   3. A disabled configuration refuses everything.
//   4. The Origin must be one of the configuration's allowed origins ("*" allows any, and
//      requests without an Origin); CORS headers go only to allowed origins.
//   5. The endpoint (endpoints.hpp) runs, stamping its coordinator calls with the proxy key.
// Every answer is JSON; errors are {code, message, details} like the coordinator's, and the
// coordinator's errors keep their status, code and message.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "abuse_limits.hpp"
#include "config_source.hpp"
#include "signet/plugin.hpp"

namespace auth_proxy {

struct ProxyOptions {
  std::shared_ptr<const signet::crypto::SecretBytes> serviceKey;  // the proxy's own P-256 key
  LimitSettings limits;
  int64_t configCacheMs = 5000;
};

class AuthProxy {
 public:
  explicit AuthProxy(ProxyOptions options);
  // `coordinator`: where the public API is (the embedded proxy's main listener, or the URL a
  // standalone proxy was given).
  signet::HttpReply handle(const signet::HttpCall& call, const Coordinator& coordinator,
                           int64_t nowMs);
  const std::string& servicePublicKey() const { return source_.servicePublicKey(); }

 private:
  ProxyOptions options_;
  ConfigSource source_;
  AbuseLimits limits_;
};

// The listener's routes: POST and OPTIONS for every endpoint, detached from the store; each
// asks `coordinator` where the API is.
std::vector<signet::RouteSpec> proxyRoutes(
    std::shared_ptr<AuthProxy> proxy,
    std::function<Coordinator(signet::RequestContext&)> coordinator);

}  // namespace auth_proxy
