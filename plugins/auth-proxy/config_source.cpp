#include "config_source.hpp"

#include "config_route.hpp"
#include "sealed_key.hpp"
#include "signet/encoding.hpp"

namespace auth_proxy {

using namespace signet;

ConfigSource::ConfigSource(std::shared_ptr<const crypto::SecretBytes> serviceKey, int64_t cacheMs)
    : serviceKey_(std::move(serviceKey)),
      servicePublicKey_(toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, *serviceKey_))),
      serviceStamper_(std::make_shared<ApiKeyStamper>(crypto::SecretBytes(serviceKey_->bytes()),
                                                      stamp::Scheme::kP256)),
      cacheMs_(cacheMs) {}

std::shared_ptr<const LoadedConfig> ConfigSource::get(const std::string& configId, int64_t nowMs,
                                                      const Coordinator& coordinator) {
  auto unknown = [&] {
    return unauthenticated("unknown X-Auth-Proxy-Config-Id \"" + configId + "\"");
  };
  // Every config id enable_auth_proxy hands out is a UUID: anything else is unknown at once.
  if (!json::isUuid(configId)) throw unknown();
  std::shared_ptr<const LoadedConfig> stale;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = known_.find(configId); it != known_.end()) {
      Known& k = it->second;
      if (nowMs - k.fetchedAtMs < cacheMs_) return k.config;
      // Stale: one request refreshes it, the others are served what was known meanwhile.
      if (k.refreshing) return k.config;
      k.refreshing = true;
      stale = k.config;
    } else {
      if (auto u = unknown_.find(configId); u != unknown_.end()) {
        if (nowMs - u->second.seenAtMs < kUnknownMs) throw unknown();
        order_.erase(u->second.age);
        unknown_.erase(u);
      }
      // Only ids never seen cost the allowance: known ones are refreshed whatever the load.
      if (!mayLookUp(nowMs))
        throw Error(Code::kUnavailable,
                    "the auth proxy is looking up " + std::to_string(kLookupsPerSecond) +
                        " unknown configurations this second, its limit; try again shortly")
            .retryAfter(1);
    }
  }
  // Fetched outside the lock: a slow coordinator holds up only the requests that need it.
  std::shared_ptr<const LoadedConfig> config;
  try {
    config = fetch(configId, nowMs, coordinator);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = known_.find(configId); it != known_.end()) it->second.refreshing = false;
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (config) {
    known_[configId] = Known{config, nowMs, false};
    return config;
  }
  known_.erase(configId);  // known once, unknown now
  rememberUnknown(configId, nowMs);
  throw unknown();
}

bool ConfigSource::mayLookUp(int64_t nowMs) {
  int64_t second = nowMs / 1000;
  if (second != lookupSecond_) {
    lookupSecond_ = second;
    lookups_ = 0;
  }
  if (lookups_ >= kLookupsPerSecond) return false;
  ++lookups_;
  return true;
}

void ConfigSource::rememberUnknown(const std::string& configId, int64_t nowMs) {
  while (unknown_.size() >= kMaxUnknown) {  // the oldest makes room; the others stay
    unknown_.erase(order_.front());
    order_.pop_front();
  }
  order_.push_back(configId);
  unknown_[configId] = Unknown{nowMs, std::prev(order_.end())};
}

std::shared_ptr<const LoadedConfig> ConfigSource::fetch(const std::string& configId, int64_t nowMs,
                                                        const Coordinator& coordinator) {
  Client client(coordinator.url, serviceStamper_, coordinator.caFile);
  client.setHeaders(coordinator.headers);
  json::Object body = json::object();
  body->set("configId", configId);
  body->set("timestampMs", std::to_string(nowMs));
  HttpResponse r;
  try {
    r = client.post(std::string("/plugins/auth-proxy") + kConfigRoute, json::stringify(body));
  } catch (const std::exception& e) {
    throw Error(Code::kUnavailable,
                std::string("the auth proxy cannot reach the coordinator: ") + e.what());
  }
  if (r.status == 404) return nullptr;
  if (r.status != 200) {
    std::string message = r.body;
    try {
      message = json::parseObject(r.body, "coordinator answer")->getValue<std::string>("message");
    } catch (...) {
    }
    throw Error(Code::kUnavailable, "the coordinator refused this proxy's configuration request (" +
                                        std::to_string(r.status) + "): " + message);
  }
  auto o = json::parseObject(r.body, "coordinator answer");
  auto c = json::requireObject(o, "config", "");
  auto loaded = std::make_shared<LoadedConfig>();
  loaded->configId = json::requireString(c, "configId", "config");
  loaded->organizationId = json::requireString(c, "organizationId", "config");
  loaded->enabled = json::optionalBool(c, "enabled", "config", false);
  loaded->settings = effectiveSettings(json::requireObject(c, "settings", "config"));
  loaded->signerPublicKey = json::requireString(o, "signerPublicKey", "");
  if (auto sealed = json::optionalObject(o, "sealedApiKey", ""))
    loaded->stamper =
        std::make_shared<SealedKeyStamper>(sealedKeyFrom(sealed, "sealedApiKey"), serviceKey_);
  return loaded;
}

}  // namespace auth_proxy
