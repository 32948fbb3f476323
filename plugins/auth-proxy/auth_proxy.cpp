#include "auth_proxy.hpp"

#include <Poco/Exception.h>

#include <algorithm>

#include "coordinator_calls.hpp"
#include "endpoints.hpp"
#include "signet/client.hpp"
#include "signet/egress.hpp"

namespace auth_proxy {

using namespace signet;

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers corsHeaders(const std::string& allowOrigin) {
  return {{"Access-Control-Allow-Origin", allowOrigin},
          {"Access-Control-Allow-Methods", "POST, OPTIONS"},
          {"Access-Control-Allow-Headers", "Content-Type, X-Auth-Proxy-Config-Id, X-Captcha-Token"},
          {"Access-Control-Max-Age", "600"},
          {"Vary", "Origin"}};
}

HttpReply jsonReply(int status, const json::Object& body, Headers headers) {
  HttpReply r;
  r.status = status;
  r.body = json::stringify(body);
  r.headers = std::move(headers);
  return r;
}

HttpReply errorReply(const Error& e, Headers headers) {
  json::Object body = json::object();
  body->set("code", static_cast<int>(e.code()));
  body->set("message", std::string(e.what()));
  body->set("details", json::array());
  auto passed = dynamic_cast<const RequestError*>(&e);
  int status = passed ? passed->httpStatus() : httpStatusFor(e.code());
  if (status == 429 || status == 503) headers.emplace_back("Retry-After", retryAfterOf(e));
  return jsonReply(status, body, std::move(headers));
}

std::optional<std::string> header(const HttpCall& call, const std::string& lowerName) {
  auto it = call.headers.find(lowerName);
  if (it == call.headers.end()) return std::nullopt;
  return it->second;
}

}  // namespace

AuthProxy::AuthProxy(ProxyOptions options)
    : options_(std::move(options)), source_(options_.serviceKey, options_.configCacheMs) {}

HttpReply AuthProxy::handle(const HttpCall& call, const Coordinator& coordinatorAt, int64_t nowMs) {
  auto origin = header(call, "origin");
  // Until the origin is checked, errors carry CORS headers for the origin that asked, so that
  // a browser app can read what was wrong with its config id.
  Headers cors = corsHeaders(origin.value_or("*"));
  if (call.method == "OPTIONS") {
    HttpReply r;
    r.status = 204;
    r.headers = cors;
    return r;
  }
  try {
    const auto& table = endpoints();
    auto endpoint = std::find_if(table.begin(), table.end(),
                                 [&](const auto& e) { return e.path == call.subpath; });
    if (endpoint == table.end()) throw notFound("unknown auth proxy endpoint " + call.subpath);
    // Counted before the configuration is looked up: a made-up id costs its sender too. A client
    // is its address, or its IPv6 /64.
    const std::string client = egress::clientNetwork(call.peer);
    limits_.take(options_.limits.requestsPerIp, client, nowMs);
    auto configId = header(call, "x-auth-proxy-config-id");
    if (!configId || configId->empty())
      throw unauthenticated(
          "the X-Auth-Proxy-Config-Id header is required: the id enable_auth_proxy returned");
    auto config = source_.get(*configId, nowMs, coordinatorAt);
    limits_.take(options_.limits.requestsPerConfig, config->configId, nowMs);
    if (!config->enabled || !config->stamper)
      throw permissionDenied("the auth proxy of configuration " + *configId +
                             " is disabled (disable_auth_proxy); enable it to serve requests");
    const auto& allowed = config->settings.allowedOrigins;
    bool any = std::find(allowed.begin(), allowed.end(), "*") != allowed.end();
    if (!any && (!origin || std::find(allowed.begin(), allowed.end(), *origin) == allowed.end())) {
      cors.clear();  // a refused origin gets no CORS headers
      throw permissionDenied("origin " + (origin ? "\"" + *origin + "\"" : std::string("(none)")) +
                             " is not allowed by auth proxy configuration " + *configId +
                             " (allowedOrigins)");
    }
    auto body = call.body.find_first_not_of(" \t\r\n") == std::string::npos
                    ? json::object()  // the wallet-kit calls send no body at all
                    : json::parseObject(call.body, "request body");
    checkFields(*endpoint, body);
    CoordinatorCalls coordinator(coordinatorAt, *config);
    ProxyCall pc{*config, coordinator, body, client, limits_, options_.limits, nowMs};
    return jsonReply(200, endpoint->handler(pc), cors);
  } catch (const Error& e) {
    return errorReply(e, cors);
  } catch (const Poco::Exception& e) {  // the HTTP client's: the coordinator is unreachable
    return errorReply(Error(Code::kUnavailable,
                            "the auth proxy cannot reach the coordinator: " + e.displayText()),
                      cors);
  }
}

std::vector<RouteSpec> proxyRoutes(std::shared_ptr<AuthProxy> proxy,
                                   std::function<Coordinator(RequestContext&)> coordinator) {
  std::vector<RouteSpec> routes;
  auto handler = [proxy, coordinator](RequestContext& ctx, const HttpCall& call) {
    return proxy->handle(call, coordinator(ctx), ctx.nowMs());
  };
  for (const auto& endpoint : endpoints()) {
    routes.push_back({"POST", endpoint.path, RouteAccess::kDetached, handler});
    routes.push_back({"OPTIONS", endpoint.path, RouteAccess::kDetached, handler});
  }
  return routes;
}

}  // namespace auth_proxy
