// The auth-proxy plugin's registration. Two halves in one plugin:
//  - in the coordinator: the configuration activities, a query, the route that hands proxies
//    their configuration, and the store's table;
//  - the proxy: its own listener (plugins.settings.auth-proxy.listen), which reaches the
//    coordinator only over HTTP, through the public API, like a proxy running elsewhere
//    (`signet auth-proxy serve`).
#include <Poco/Net/SSLManager.h>

#include <sys/stat.h>

#include <fstream>
#include <memory>

#include "auth_proxy.hpp"
#include "config_activities.hpp"
#include "config_route.hpp"
#include "schema.hpp"
#include "signet/encoding.hpp"

namespace {

using namespace signet;
using namespace auth_proxy;

const std::string kSettings = "plugins.settings.auth-proxy";

TrustedProxies trustedKeys(const json::Object& settings) {
  TrustedProxies t;
  auto keys = json::optionalStringArray(settings, "trustedProxyKeys", kSettings);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto bytes = fromHex(keys[i]);
    auto canonical =
        bytes ? crypto::normalizePublicKey(crypto::Curve::kP256, *bytes) : std::nullopt;
    if (!canonical)
      throw invalidArgument("invalid field " + kSettings + ".trustedProxyKeys[" +
                            std::to_string(i) + "]: \"" + keys[i] +
                            "\" is not a P-256 public key in hex");
    t.keys.push_back(*canonical);
  }
  return t;
}

// The private key in `file` (hex), which only its owner may read: a key anyone on the host can
// read is refused, as ssh refuses such a key.
crypto::SecretBytes loadServiceKey(const std::string& file) {
  std::string where = kSettings + ".serviceKeyFile";
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw invalidArgument("invalid field " + where + ": cannot read " + file);
  if (st.st_mode & 077)
    throw invalidArgument("invalid field " + where + ": " + file +
                          " may be read by other users of this host; chmod 600 it");
  std::ifstream in(file);
  std::string hex;
  crypto::WipeOnExit wipeHex(hex);
  in >> hex;
  auto bytes = fromHex(hex);
  if (!bytes || bytes->size() != 32)
    throw invalidArgument("invalid field " + where + ": " + file +
                          " does not hold a P-256 private key in hex");
  crypto::SecretBytes key(std::move(*bytes));
  crypto::publicKeyFromPrivate(crypto::Curve::kP256, key);  // throws for a scalar out of range
  return key;
}

void registerAuthProxy(Registry& r) {
  const json::Object& settings = r.settings();
  std::string listen =
      json::optionalString(settings, "listen", kSettings).value_or("127.0.0.1:8090");
  // Where the embedded proxy finds the API: the gateway's own listener unless told otherwise.
  auto coordinator = json::optionalString(settings, "coordinator", kSettings);
  int cacheSeconds = settings->has("configCacheSeconds")
                         ? json::requireInt(settings, "configCacheSeconds", kSettings)
                         : 5;
  if (cacheSeconds < 0 || cacheSeconds > 3600)
    throw invalidArgument("invalid field " + kSettings + ".configCacheSeconds: from 0 to 3600");

  // The embedded proxy's service key lives in memory only: a restart makes a new one, and the
  // coordinator in this process trusts it without configuration. A standalone proxy reads its
  // own from serviceKeyFile (signet auth-proxy keygen).
  ProxyOptions options;
  auto keyFile = json::optionalString(settings, "serviceKeyFile", kSettings);
  options.serviceKey = std::make_shared<const crypto::SecretBytes>(
      keyFile ? loadServiceKey(*keyFile) : crypto::generatePrivateKey(crypto::Curve::kP256));
  options.limits = parseLimits(settings, kSettings);
  options.configCacheMs = int64_t(cacheSeconds) * 1000;
  auto caFileSetting = json::optionalString(settings, "coordinatorCaFile", kSettings);
  if (caFileSetting && !std::ifstream(*caFileSetting))
    throw invalidArgument("invalid field " + kSettings + ".coordinatorCaFile: cannot read " +
                          *caFileSetting);
  std::string caFile = caFileSetting.value_or("");
  auto proxy = std::make_shared<AuthProxy>(std::move(options));
  auto trusted = std::make_shared<TrustedProxies>(trustedKeys(settings));
  trusted->keys.push_back(
      *crypto::normalizePublicKey(crypto::Curve::kP256, *fromHex(proxy->servicePublicKey())));

  // clang-format off
  r.activity({.type = "ACTIVITY_TYPE_ENABLE_AUTH_PROXY",        .path = "enable_auth_proxy",
              .intentKey = "enableAuthProxyIntent",             .resultKey = "enableAuthProxyResult",
              .resource = "AUTH_PROXY", .action = "CREATE",     .rootQuorumOnly = true,
              .handler = enableAuthProxy});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", .path = "update_auth_proxy_config",
              .intentKey = "updateAuthProxyConfigIntent",       .resultKey = "updateAuthProxyConfigResult",
              .resource = "AUTH_PROXY", .action = "UPDATE",     .rootQuorumOnly = true,
              .handler = kUpdateAuthProxyConfig.handler(updateAuthProxyConfig),
              .parameters = kUpdateAuthProxyConfig.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DISABLE_AUTH_PROXY",       .path = "disable_auth_proxy",
              .intentKey = "disableAuthProxyIntent",            .resultKey = "disableAuthProxyResult",
              .resource = "AUTH_PROXY", .action = "DELETE",     .rootQuorumOnly = true,
              .handler = disableAuthProxy});
  r.query({"get_auth_proxy_config", getAuthProxyConfig});
  r.route({"POST", kConfigRoute, RouteAccess::kPublic,
           [trusted](RequestContext& ctx, const HttpCall& call) {
             return serveProxyConfig(ctx, call, *trusted);
           }});
  // clang-format on
  r.organizationDeletionHook(forgetOrganization);
  r.migrations("auth-proxy", migrations());
  r.listener(
      {.name = "proxy",
       .address = listen,
       .routes = proxyRoutes(
           proxy,
           [coordinator, caFile](RequestContext& ctx) {
             if (coordinator) return Coordinator{*coordinator, {}, caFile};
             // The gateway's own listener, which this process's
             // token tells from the strangers the proxy forwards.
             const auto& self = ctx.services().gateway;
             return Coordinator{self.localUrl(), {{kLocalCallHeader, self.localCallToken}}, caFile};
           }),
       .announce = "auth proxy listening on"});
}

}  // namespace

SIGNET_PLUGIN(registerAuthProxy,
              {.name = "auth-proxy",
               .version = "0.1.0",
               .description = "the auth proxy: OTP, OAuth and sign-up for apps with no backend",
               .submitPaths = {"enable_auth_proxy", "update_auth_proxy_config",
                               "disable_auth_proxy"},
               .queryPaths = {"get_auth_proxy_config"},
               .routes = {"POST /proxy_config public"},
               .listeners = {"proxy"}})
