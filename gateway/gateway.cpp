#include "gateway.hpp"

#include <Poco/Logger.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "activity/activity_events.hpp"
#include "activity/secret_parameters.hpp"
#include "activity/secret_results.hpp"
#include "background.hpp"
#include "log/activity_log.hpp"
#include "log/checkpoint.hpp"
#include "observability/gateway_status.hpp"
#include "store/core_schema.hpp"
#include "store/keyring.hpp"
#include "store/sql_connection.hpp"
#include "tenancy/identity_services.hpp"

namespace signet {

int64_t systemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ModuleInfo coreModule() {
  ModuleInfo core;
  core.name = "core";
  core.version = "0.1.0";
  core.description = "organizations, users, API keys, activities";
  core.builtin = true;
  core.enabled = true;
  ModuleRegistry registry(core, ModuleEnvironment{});
  registerCoreModule(registry);
  core.migrations.insert(core.migrations.begin(), {"core", coreMigrations()});
  return core;
}

std::string Gateway::ensureKey(Database& db, const crypto::SecretBytes& masterKey,
                               const std::string& settingName, const std::string& secretId) {
  std::string publicKey;
  db.transaction([&](Db& tx) {
    if (auto row =
            tx.queryOne("SELECT value FROM gateway_settings WHERE name = ?", {settingName})) {
      publicKey = row->str("value");
      return;
    }
    auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
    auto pub = crypto::uncompressPublicKey(
        crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
    DbKeyring(tx, masterKey).seal(secretId, kSignerKind, priv);
    publicKey = toHex(pub);
    tx.exec("INSERT INTO gateway_settings (name, value) VALUES (?, ?)", {settingName, publicKey});
  });
  return publicKey;
}

std::string Gateway::ensureSignerKey(Database& db, const crypto::SecretBytes& masterKey) {
  return ensureKey(db, masterKey, "signer_public_key", kSignerSecretId);
}

int64_t Gateway::nowMs() const {
  const auto* clock = clock_.load(std::memory_order_acquire);
  return clock ? (*clock)() : systemNowMs();
}

void Gateway::setClock(std::function<int64_t()> clock) {
  std::lock_guard lock(clocksMutex_);
  clocks_.push_back(std::make_unique<const std::function<int64_t()>>(std::move(clock)));
  clock_.store(clocks_.back().get(), std::memory_order_release);
}

Gateway::Gateway(Config config) : config_(std::move(config)) {
  egress::configure(config_.server.egress);
  masterKey_ = MasterKey::load(config_.masterKeyFile, config_.masterKeyPkcs11);
  database_ = std::make_unique<Database>(config_.database);
  loadModules();

  for (const auto& module : catalog_.modules())
    if (module->enabled)
      for (const auto& [stream, list] : module->migrations) database_->migrate(stream, list);
  checkEventInterestQueries(*this);

  signerPublicKey_ = ensureSignerKey(*database_, masterKey_);
  GatewayFacts facts;
  facts.publicUrl = config_.publicUrl;
  facts.oidcIssuerPublicKey =
      ensureKey(*database_, masterKey_, "oidc_issuer_public_key", kOidcIssuerSecretId);
  // The kid names the key: a rotated key gets another.
  facts.oidcIssuerKeyId = facts.oidcIssuerPublicKey.substr(2, 16);
  facts.clientSecretPublicKey =
      ensureKey(*database_, masterKey_, "client_secrets_public_key", kClientSecretsSecretId);
  facts.onRampSecretPublicKey = toHex(*crypto::normalizePublicKey(
      crypto::Curve::kP256, *fromHex(ensureKey(*database_, masterKey_, "onramp_secrets_public_key",
                                               kOnRampSecretsSecretId))));
  facts.localUrl = [url = localUrl_] {
    std::lock_guard<std::mutex> lock(url->mutex);
    return url->url;
  };
  facts.localCallToken = toHex(crypto::randomBytes(32));
  catalog_.provideGatewayFacts(std::move(facts));
  sealSecretsStoredInClear();
  // After the sealing: a store from before 0.9 is logged as sealed, never with a digest of a
  // secret once stored in clear.
  startActivityLog();

  auto uncompressed = [](const crypto::SecretBytes& k) {
    return crypto::uncompressPublicKey(crypto::Curve::kP256,
                                       crypto::publicKeyFromPrivate(crypto::Curve::kP256, k));
  };
  auto encryptionKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  appProofSigningKey_ = crypto::generatePrivateKey(crypto::Curve::kP256);
  appProofPublicKey_ =
      toHex(uncompressed(encryptionKey)) + toHex(uncompressed(appProofSigningKey_));
}

void Gateway::startActivityLog() {
  log_checkpoint::ensureKey(*database_, masterKey_, config_.logOrigin);
  // For tests/bench/log_cost.sh alone, which measures what the log costs by running the same
  // binary without it: no change is noted and nothing is appended, a migration's notes included
  // (they wait for a start without it). Not a setting: the states written meanwhile get no leaf,
  // so the log no longer holds the store's whole history. Read by every command that opens the
  // gateway, `signet serve` among them.
  if (activity_log::switchedOff()) {
    // An error, not a warning: SIGNET_LOG_LEVEL=error must not hide it.
    Poco::Logger::get("signet.log")
        .error(
            "SIGNET_BENCH_WITHOUT_ACTIVITY_LOG=1: the activity log is off, and with it tamper "
            "evidence: what this gateway writes now gets no leaf. For benchmarks only.");
    return;
  }
  // The system clock, not the gateway's (which tests move): when a leaf was appended is a
  // fact of the store, and the hook may run while the store closes, after the gateway's clock.
  database_->setWriteHooks(activity_log::writerSetup,
                           [](Db& db) { return activity_log::startAppend(db, systemNowMs()); });
  // What an older store held, which a migration noted, is appended now. On PostgreSQL the
  // append fails (StoreUnavailable) when notes are committed while it checks for them, as a
  // migration run by another gateway starting beside this one does (activity_log.cpp, taken),
  // and the server may end a deadlock by failing it: this side tries again.
  constexpr int kTries = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      database_->transaction([](Db&) {});
      return;
    } catch (const StoreUnavailable& e) {
      if (attempt == kTries) throw;
      Poco::Logger::get("signet.store")
          .warning("appending the activities a migration noted to the activity log: " +
                   std::string(e.what()) + "; trying again");
      std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
    }
  }
}

void Gateway::sealSecretsStoredInClear() {
  // Once per store and module: versions before 0.9 stored verification tokens (results) and
  // pending activities' secret parameters in clear (activity/secret_results.hpp). On PostgreSQL
  // gateways starting together take turns (the lock), and only the first finds work.
  bool sealed = false;
  for (const auto& module : catalog_.modules()) {
    if (!module->enabled) continue;
    std::vector<const ActivitySpec*> specs;
    for (const auto& spec : module->activities)
      if (!spec.secretResults.empty() || activities::hasSecretParameters(spec))
        specs.push_back(&spec);
    if (specs.empty()) continue;
    std::string done = "secrets_in_activities_sealed:" + module->name;
    database_->transaction([&](Db& db) {
      if (database_->backend() == Backend::kPostgres)
        db.query("SELECT pg_advisory_xact_lock(7320)");
      if (db.queryOne("SELECT value FROM gateway_settings WHERE name = ?", {done})) return;
      DbKeyring keyring(db, masterKey_);
      int changed = activities::sealStoredInClear(db, keyring, specs);
      db.exec("INSERT INTO gateway_settings (name, value) VALUES (?, ?)", {done, "1"});
      sealed |= changed > 0;
      if (changed)
        Poco::Logger::get("signet.store")
            .notice("sealed the secrets of %d activities of module %s stored in clear", changed,
                    module->name);
    });
  }
  // SQLite: the WAL still holds the pages as they were; checkpointed and truncated now, no
  // frame of them is left (the file's own free cells were overwritten, secure_delete).
  if (sealed && database_->backend() == Backend::kSqlite)
    database_->read([](Db& db) { db.query("PRAGMA wal_checkpoint(TRUNCATE)"); });
}

Gateway::Gateway(Config config, Detached) : config_(std::move(config)) {
  egress::configure(config_.server.egress);
  loadModules();
  GatewayFacts facts;
  facts.publicUrl = config_.publicUrl;
  facts.localUrl = [] { return std::string(); };
  catalog_.provideGatewayFacts(std::move(facts));
}

Database& Gateway::database() {
  if (!database_)
    throw failedPrecondition("this process serves a plugin's listener alone and has no store");
  return *database_;
}

void Gateway::loadModules() {
  ModuleInfo core = coreModule();
  // The one core query that describes the gateway itself reads the catalog, so the gateway
  // registers it here rather than in the core's table.
  core.queries.push_back(
      {"signet_get_gateway_status", [this](RequestContext& ctx, const json::Object& body) {
         return gatewayStatus(catalog_, ctx, body);
       }});
  catalog_.add(std::move(core));

  std::set<std::string> enabled(config_.enabledPlugins.begin(), config_.enabledPlugins.end());
  ModuleEnvironment environment{config_.pluginSettings, config_.dataDir.string()};
  PluginHost host;
  for (auto& module : host.discover(config_.pluginDir, enabled, environment, config_.pluginPins))
    catalog_.add(std::move(module));
  // Any library the gateway cannot vouch for stops start-up, enabled or not: a plugin
  // directory is something an operator controls, and a stray or broken file in it is a mistake
  // to fix, not to serve around. Every problem is named at once.
  if (!host.problems().empty()) {
    std::string all;
    for (const auto& problem : host.problems())
      all += (all.empty() ? "" : "; ") + problem.path + ": " + problem.message;
    throw failedPrecondition("the plugin directory " + config_.pluginDir.string() +
                             " holds libraries this gateway cannot use: " + all);
  }
  auto known = [&](const std::string& name) {
    for (const auto& m : catalog_.modules())
      if (m->name == name && !m->builtin) return true;
    return false;
  };
  for (const auto& name : enabled)
    if (!known(name))
      throw failedPrecondition("plugin '" + name +
                               "' is enabled in the config (plugins.enabled) but was not found "
                               "(looked for " +
                               (config_.pluginDir / pluginFileName(name)).string() + ")");
  for (const auto& [name, pin] : config_.pluginPins)
    if (!known(name))
      throw failedPrecondition("plugins.pins names plugin '" + name + "', which is not in " +
                               config_.pluginDir.string());
  catalog_.provideIdentity(identityServices(catalog_));
  catalog_.index();
}

Gateway::~Gateway() {
  stopBackground();
}

void Gateway::startBackground() {
  if (!database_) return;  // a detached gateway has no store to work on
  if (!background_) background_ = std::make_unique<Background>(*this);
  background_->start();
}

void Gateway::stopBackground() {
  if (background_) background_->stop();
}

void Gateway::wakeBackground() {
  if (background_) background_->wake();
}

void Gateway::setLocalUrl(const std::string& url) {
  std::lock_guard<std::mutex> lock(localUrl_->mutex);
  localUrl_->url = url;
}

void Gateway::setPublicUrl(const std::string& url) {
  config_.publicUrl = url;
  GatewayFacts facts = catalog_.services().gateway;
  facts.publicUrl = url;
  catalog_.provideGatewayFacts(std::move(facts));
}

json::Object Gateway::appProof(const std::string& proofPayload) const {
  auto sig =
      crypto::signEcdsa(crypto::Curve::kP256, appProofSigningKey_, crypto::sha256(proofPayload));
  json::Object p = json::object();
  p->set("scheme", "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256");
  p->set("publicKey", appProofPublicKey_);
  p->set("proofPayload", proofPayload);
  p->set("signature", toHex(sig.r.data(), 32) + toHex(sig.s.data(), 32));
  return p;
}

}  // namespace signet
