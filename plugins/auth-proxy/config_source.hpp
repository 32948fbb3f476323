// The proxy's view of its configurations: fetched from the coordinator (config_route.hpp) with
// the proxy's service key, kept for a few seconds so that a change or a disable reaches the
// proxy quickly without a coordinator round trip per request. The proxy API key stays sealed
// in the cache; its stamper opens it per request.
//
// A config id is anyone's to make up, so what an unknown one costs is bounded: an id that is not
// a UUID is refused without asking; an unknown one is remembered for a minute, among at most
// kMaxUnknown (the oldest making room), apart from the known ones, which it cannot push out; and
// at most kLookupsPerSecond never-seen ids are looked up a second, past which the request is
// told to try again (503). A known configuration past its cache time is refreshed by one
// request while the others are served what was known.
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "proxy_settings.hpp"
#include "signet/client.hpp"

namespace auth_proxy {

// Where the proxy reaches the coordinator's API, what it sends with every request there (the
// embedded proxy's local-call header, GatewayFacts::localCallToken), and the CAs it trusts
// besides the system's for an https:// coordinator (coordinatorCaFile; may be empty).
struct Coordinator {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::string caFile = {};
};

struct LoadedConfig {
  std::string configId;
  std::string organizationId;  // the parent organization
  bool enabled = false;
  EffectiveSettings settings;
  std::string signerPublicKey;               // the coordinator's, uncompressed hex
  std::shared_ptr<signet::Stamper> stamper;  // the proxy API key; null while disabled
};

class ConfigSource {
 public:
  ConfigSource(std::shared_ptr<const signet::crypto::SecretBytes> serviceKey, int64_t cacheMs);

  // The configuration with this id, fetched from the coordinator at `coordinatorUrl` when the
  // cache has none. Unauthenticated for an id the coordinator does not know; Unavailable when
  // the coordinator cannot be reached.
  std::shared_ptr<const LoadedConfig> get(const std::string& configId, int64_t nowMs,
                                          const Coordinator& coordinator);
  // The service key's public half, compressed hex: what the coordinator must trust.
  const std::string& servicePublicKey() const { return servicePublicKey_; }

 private:
  std::shared_ptr<const LoadedConfig> fetch(const std::string& configId, int64_t nowMs,
                                            const Coordinator& coordinator);

  static constexpr size_t kMaxUnknown = 4096;
  static constexpr int64_t kUnknownMs = 60'000;
  static constexpr int kLookupsPerSecond = 50;

  struct Known {
    std::shared_ptr<const LoadedConfig> config;
    int64_t fetchedAtMs = 0;
    bool refreshing = false;  // a request is fetching it afresh
  };
  struct Unknown {
    int64_t seenAtMs = 0;
    std::list<std::string>::iterator age;  // its place in `order_`
  };
  // Whether another lookup fits in this second's allowance (under mutex_).
  bool mayLookUp(int64_t nowMs);
  void rememberUnknown(const std::string& configId, int64_t nowMs);

  std::shared_ptr<const signet::crypto::SecretBytes> serviceKey_;
  std::string servicePublicKey_;
  std::shared_ptr<signet::ApiKeyStamper> serviceStamper_;
  int64_t cacheMs_;
  std::mutex mutex_;
  std::map<std::string, Known> known_;      // ids the coordinator knows: as many as proxies
  std::map<std::string, Unknown> unknown_;  // bounded by kMaxUnknown
  std::list<std::string> order_;            // unknown ids, oldest first
  int64_t lookupSecond_ = 0;
  int lookups_ = 0;
};

}  // namespace auth_proxy
