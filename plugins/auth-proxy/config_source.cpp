#include "config_source.hpp"

#include "config_route.hpp"
#include "sealed_key.hpp"
#include "signet/encoding.hpp"

namespace auth_proxy {

using namespace signet;

ConfigSource::ConfigSource(std::shared_ptr<const crypto::SecretBytes> serviceKey, int64_t cacheMs,
                           std::string caFile)
    : serviceKey_(std::move(serviceKey)),
      servicePublicKey_(toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, *serviceKey_))),
      serviceStamper_(std::make_shared<ApiKeyStamper>(crypto::SecretBytes(serviceKey_->bytes()),
                                                      stamp::Scheme::kP256)),
      cacheMs_(cacheMs),
      caFile_(std::move(caFile)) {}

std::shared_ptr<const LoadedConfig> ConfigSource::get(const std::string& configId, int64_t nowMs,
                                                      const std::string& coordinatorUrl) {
  auto unknown = [&] {
    return unauthenticated("unknown X-Auth-Proxy-Config-Id \"" + configId + "\"");
  };
  // Every config id enable_auth_proxy hands out is a UUID: anything else is unknown at once.
  if (!json::isUuid(configId)) throw unknown();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(configId);
    if (it != cache_.end() &&
        nowMs - it->second.fetchedAtMs < (it->second.config ? cacheMs_ : kUnknownMs)) {
      if (!it->second.config) throw unknown();
      return it->second.config;
    }
    if (!mayLookUp(nowMs))
      throw Error(Code::kUnavailable,
                  "the auth proxy is looking up " + std::to_string(kLookupsPerSecond) +
                      " configurations this second, its limit; try again shortly");
  }
  // Fetched outside the lock: a slow coordinator holds up only the requests that need it.
  std::shared_ptr<const LoadedConfig> config = fetch(configId, nowMs, coordinatorUrl);
  std::lock_guard<std::mutex> lock(mutex_);
  remember(configId, config, nowMs);
  if (!config) throw unknown();
  return config;
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

void ConfigSource::remember(const std::string& configId, std::shared_ptr<const LoadedConfig> config,
                            int64_t nowMs) {
  auto it = cache_.find(configId);
  if (it != cache_.end()) {
    order_.erase(it->second.age);
    cache_.erase(it);
  }
  while (cache_.size() >= kMaxCached) {  // the oldest makes room; the others stay
    cache_.erase(order_.front());
    order_.pop_front();
  }
  order_.push_back(configId);
  cache_[configId] = Entry{std::move(config), nowMs, std::prev(order_.end())};
}

std::shared_ptr<const LoadedConfig> ConfigSource::fetch(const std::string& configId, int64_t nowMs,
                                                        const std::string& coordinatorUrl) {
  Client client(coordinatorUrl, serviceStamper_, caFile_);
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
