// One running gateway: configuration, store, master key, and the catalog of what the core
// and the enabled plugins registered. The HTTP server and the CLI both build on it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "config/config.hpp"
#include "plugins/catalog.hpp"
#include "plugins/plugin_host.hpp"
#include "server/rate_limiter.hpp"
#include "store/database.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet {

class Background;

class Gateway {
 public:
  // Opens the store, loads plugins, applies every enabled module's migrations. Throws when an
  // enabled plugin is missing or unusable.
  explicit Gateway(Config config);
  // A gateway with no store and no keys: the catalog of the enabled plugins only, for serving
  // a plugin's detached listener alone (`signet auth-proxy serve`). database() refuses.
  struct Detached {};
  Gateway(Config config, Detached);
  ~Gateway();

  const Config& config() const { return config_; }
  Database& database();
  const Catalog& catalog() const { return catalog_; }
  const crypto::SecretBytes& masterKey() const { return masterKey_; }
  // The gateway signer's P-256 public key, uncompressed hex (what SDK overrides take).
  const std::string& signerPublicKey() const { return signerPublicKey_; }

  // App proofs (tkhq/sdk packages/crypto, proof.ts): {scheme, publicKey, proofPayload, signature}
  // for a payload, signed by this process's ephemeral P-256 key. publicKey is 130 bytes of hex: an
  // encryption key ‖ the signing key, both uncompressed. The keys live in memory only and die
  // with the process; a boot proof binding them to an enclave is not available here.
  json::Object appProof(const std::string& proofPayload) const;
  const std::string& appProofPublicKey() const { return appProofPublicKey_; }

  // What each organization may request (limits.rateLimit), shared by every listener.
  RateLimiter& organizationRates() { return organizationRates_; }
  // What service keys (the auth proxy's) are charged instead (limits.rateLimit.perAuthProxy...).
  RateLimiter& serviceRates() { return serviceRates_; }
  // What requests read of the directory, kept between them (tenancy/directory_cache.hpp).
  DirectoryCache& directoryCache() { return directoryCache_; }

  // The activity event dispatcher and the modules' workers: `signet serve` starts them once it
  // listens and stops them before it closes the store (background.hpp).
  void startBackground();
  void stopBackground();
  // After a request that wrote to the activity event outbox, so that its events go out at once.
  void wakeBackground();
  // How many rows this process has written to the outbox (recordActivityEvent counts them,
  // committed or not). A request that finds the count moved between its start and its end may
  // have written some, and wakes the dispatcher once it has committed; the others, which wrote
  // nothing for any module, leave it asleep.
  uint64_t activityEventsWritten() const { return activityEventsWritten_.load(); }
  void countActivityEventsWritten(size_t n) { activityEventsWritten_ += n; }

  // The main listener's URL once it listens (GatewayFacts::localUrl).
  void setLocalUrl(const std::string& url);
  // Where clients reach this gateway (Config::publicUrl, GatewayFacts::publicUrl), when the
  // config does not say: `signet serve` sets the address it listens on. Before it serves:
  // requests read it without a lock.
  void setPublicUrl(const std::string& url);

  // The system clock, unless a test set one.
  int64_t nowMs() const;
  void setClock(std::function<int64_t()> clock);

  // Where the signer's private key lives in the keyring.
  static constexpr const char* kSignerSecretId = "gateway-signer";
  static constexpr const char* kSignerKind = "p256-private-key";

  // The OIDC issuer's key (ID tokens from oauth2_authenticate) and the key clients encrypt
  // secrets to: P-256, each in the keyring under its own id.
  static constexpr const char* kOidcIssuerSecretId = "gateway-oidc-issuer";
  static constexpr const char* kClientSecretsSecretId = "gateway-client-secrets";
  static constexpr const char* kOnRampSecretsSecretId = "gateway-onramp-secrets";

  // Creates the signer key on first use of a fresh store (signet init does it).
  static std::string ensureSignerKey(Database& db, const crypto::SecretBytes& masterKey);
  // Creates a gateway key of the keyring on first use; returns its public key (uncompressed
  // hex), which gateway_settings keeps under `settingName`.
  static std::string ensureKey(Database& db, const crypto::SecretBytes& masterKey,
                               const std::string& settingName, const std::string& secretId);

 private:
  Config config_;
  DirectoryCache directoryCache_;
  RateLimiter organizationRates_{config_.server.rateLimit.perOrganizationPerSecond,
                                 config_.server.rateLimit.burst};
  RateLimiter serviceRates_{config_.server.rateLimit.perAuthProxyPerSecond,
                            config_.server.rateLimit.burst};
  crypto::SecretBytes masterKey_;
  std::unique_ptr<Database> database_;
  void loadModules();
  void sealSecretsStoredInClear();
  // Makes the log's key on a new store and has every write transaction append what it changed
  // to the activity log (log/activity_log.hpp).
  void startActivityLog();

  Catalog catalog_;
  std::string signerPublicKey_;
  crypto::SecretBytes appProofSigningKey_;
  std::string appProofPublicKey_;
  // Tests move time while requests and the background threads read it. A clock once set stays
  // until the gateway goes, so that a reader never calls one that was freed, and reading it is
  // one atomic load: every request reads the time several times, and libstdc++'s atomic
  // shared_ptr took a spin lock for each (0.7 % of a signature's samples).
  std::atomic<const std::function<int64_t()>*> clock_{nullptr};
  std::mutex clocksMutex_;
  std::vector<std::unique_ptr<const std::function<int64_t()>>> clocks_;
  struct LocalUrl {
    std::mutex mutex;
    std::string url;
  };
  std::shared_ptr<LocalUrl> localUrl_ = std::make_shared<LocalUrl>();
  std::atomic<uint64_t> activityEventsWritten_{0};
  // Last, so that it stops before anything it uses goes.
  std::unique_ptr<Background> background_;
};

// The core's own registrations (API keys, identity, activities), through the same Registry
// a plugin gets, as a module of the catalog.
void registerCoreModule(Registry& registry);
ModuleInfo coreModule();
int64_t systemNowMs();

}  // namespace signet
