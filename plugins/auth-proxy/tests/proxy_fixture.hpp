// What the auth proxy's tests share: a gateway with the sessions and auth-proxy plugins, the
// proxy enabled for its root organization, and a client that sends what @turnkey/core sends
// (POST, JSON, X-Auth-Proxy-Config-ID, an Origin as a browser adds it; no stamp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/auth_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {

class ProxyClient {
 public:
  ProxyClient(std::string url, std::string configId, std::optional<std::string> origin)
      : url_(std::move(url)), configId_(std::move(configId)), origin_(std::move(origin)) {}

  // The raw exchange; `configHeader` overrides the header's name (nullopt: none at all).
  HttpResponse send(const std::string& path, const std::string& body,
                    std::optional<std::string> configHeader = "X-Auth-Proxy-Config-ID") const;
  // A 200 answer's JSON (a test failure otherwise).
  json::Object ok(const std::string& path, const json::Object& body) const;
  // The {code, message} of a refusal, with its HTTP status.
  struct Refusal {
    int status = 0;
    int code = 0;
    std::string message;
  };
  Refusal refused(const std::string& path, const json::Object& body) const;

  void setOrigin(std::optional<std::string> origin) { origin_ = std::move(origin); }
  void setConfigId(std::string id) { configId_ = std::move(id); }
  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::string configId_;
  std::optional<std::string> origin_;
};

// The header's value in a response (names compared without regard to case), or "".
std::string headerOf(const HttpResponse& r, const std::string& name);

// enable_auth_proxy through the API by the root user; returns {configId, userId}.
std::pair<std::string, std::string> enableProxy(TestGateway& gw);
// update_auth_proxy_config through the API; the activity.
json::Object configureProxy(TestGateway& gw, const std::string& settingsJson);

// Plugin settings for {"sessions", "auth-proxy"}: `sessions` and `proxy` are the JSON objects
// of each (the proxy listens on a free loopback port unless `proxy` says otherwise).
std::map<std::string, json::Object> proxySettings(const std::string& sessions,
                                                  const std::string& proxy = "{}");

}  // namespace signet::test
