#include "signet/bundles.hpp"
#include "signet/quorum_envelope.hpp"
#include "signet/testkit.hpp"

#include <filesystem>
#include <map>

#include "signet/encoding.hpp"
#include "signet/parameter_shape.hpp"
#include "store/database.hpp"
#include "store/keyring.hpp"

namespace signet::testkit {

namespace {

// Everything the plugin registers, kept as it registered it (the gateway would also wrap each
// callable to name the plugin when it throws; a test wants the exception itself).
struct Registered {
  std::vector<ActivitySpec> activities;
  std::vector<QuerySpec> queries;
  std::vector<RouteSpec> routes;
  std::vector<ListenerSpec> listeners;
  std::vector<std::pair<std::string, std::vector<Migration>>> migrations;
  std::vector<std::string> factKeywords;
  std::vector<std::string> startupNotices;
  std::vector<ActivityEventsSpec> activityEvents;
  std::vector<WorkerSpec> workers;
  std::vector<GaugeSpec> gauges;
  std::vector<CommandSpec> commands;
};

class HarnessRegistry : public Registry {
 public:
  HarnessRegistry(Registered& out, Services& services, json::Object settings, std::string dataDir)
      : out_(out), services_(services), settings_(std::move(settings)), dataDir_(dataDir) {}

  void activity(ActivitySpec spec) override { out_.activities.push_back(std::move(spec)); }
  void query(QuerySpec spec) override { out_.queries.push_back(std::move(spec)); }
  void route(RouteSpec spec) override { out_.routes.push_back(std::move(spec)); }
  void listener(ListenerSpec spec) override { out_.listeners.push_back(std::move(spec)); }
  void migrations(const std::string& module, std::vector<Migration> list) override {
    out_.migrations.emplace_back(module, std::move(list));
  }
  void walletCreator(WalletCreator creator) override {
    services_.createWallet = std::move(creator);
    services_.walletProvider = "plugin under test";
  }
  void organizationDeletionHook(OrganizationDeletionHook hook) override {
    services_.deletionHooks.emplace_back("plugin under test", std::move(hook));
  }
  void subscribe(const std::string& event, EventHandler handler) override {
    services_.subscribers.push_back({"plugin under test", {event, std::move(handler)}});
  }
  void subOrganizationFilter(SubOrganizationFilter filter) override {
    services_.subOrganizationFilters.emplace_back("plugin under test", std::move(filter));
  }
  void factKeywords(std::vector<std::string> keywords) override {
    for (auto& k : keywords) {
      services_.factKeywords.insert(k);
      out_.factKeywords.push_back(std::move(k));
    }
  }
  void factProvider(std::vector<std::string> keywords, FactProvider provider) override {
    factKeywords(std::move(keywords));
    services_.factProviders.emplace_back("plugin under test", std::move(provider));
  }
  void sessionProfileLookup(SessionProfileLookup lookup) override {
    services_.sessionProfileScope = std::move(lookup);
  }
  void oidcVerifier(OidcVerifier verifier) override {
    services_.verifyOidcToken = std::move(verifier);
  }
  // Recorded, not run: the harness has no background threads and publishes no events.
  void activityEvents(ActivityEventsSpec spec) override {
    out_.activityEvents.push_back(std::move(spec));
  }
  void worker(WorkerSpec spec) override { out_.workers.push_back(std::move(spec)); }
  void command(CommandSpec spec) override { out_.commands.push_back(std::move(spec)); }
  void gauge(GaugeSpec spec) override { out_.gauges.push_back(std::move(spec)); }
  const json::Object& settings() const override { return settings_; }
  const std::string& dataDir() const override { return dataDir_; }
  void startupNotice(const std::string& line) override { out_.startupNotices.push_back(line); }

 private:
  Registered& out_;
  Services& services_;
  json::Object settings_;
  std::string dataDir_;
};

std::filesystem::path freshDirectory() {
  auto dir = std::filesystem::temp_directory_path() / ("signet-testkit-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

struct PluginHarness::State {
  HarnessOptions options;
  std::filesystem::path dir = freshDirectory();
  std::unique_ptr<Database> database;
  crypto::SecretBytes masterKey{crypto::randomBytes(32)};
  crypto::SecretBytes signerKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string signerPublicKey = toHex(crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, signerKey)));
  // The harness's OIDC issuer and client-secret keys (GatewayFacts in `services`).
  crypto::SecretBytes oidcIssuerKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  crypto::SecretBytes clientSecretKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  crypto::SecretBytes onRampSecretKey = crypto::generatePrivateKey(crypto::Curve::kP256);
  Registered registered;
  Services services = [this] {
    Services s;
    auto hex = [](const crypto::SecretBytes& k) {
      return toHex(crypto::uncompressPublicKey(
          crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, k)));
    };
    s.gateway.publicUrl = "http://signet.testkit";
    s.gateway.oidcIssuerPublicKey = hex(oidcIssuerKey);
    s.gateway.oidcIssuerKeyId = s.gateway.oidcIssuerPublicKey.substr(2, 16);
    s.gateway.clientSecretPublicKey = hex(clientSecretKey);
    s.gateway.onRampSecretPublicKey =
        toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, onRampSecretKey));
    return s;
  }();
  std::vector<std::pair<std::string, json::Object>> published;
  std::vector<std::string> appProofs;
  std::vector<std::string> statements;  // of the last call (PluginHarness::statements)

  // Runs `type`'s handler as submit() says; its facts first, into `facts`, when asked for.
  json::Object runActivity(const std::string& type, const json::Object& parameters,
                           json::Object* facts);

  const ActivitySpec& activity(const std::string& type) const {
    for (const auto& a : registered.activities)
      if (a.type == type) return a;
    throw notFound("the plugin registers no activity of type " + type);
  }
};

namespace {

// The store as a context shows it: every statement noted in the harness's list.
class RecordingDb : public Db {
 public:
  RecordingDb(Db& inner, std::vector<std::string>& log) : inner_(inner), log_(log) {}
  size_t exec(const std::string& sql, const SqlParams& params) override {
    log_.push_back(sql);
    return inner_.exec(sql, params);
  }
  std::vector<Row> query(const std::string& sql, const SqlParams& params) override {
    log_.push_back(sql);
    return inner_.query(sql, params);
  }
  bool isPostgres() const override { return inner_.isPostgres(); }

 private:
  Db& inner_;
  std::vector<std::string>& log_;
};

// The context handlers get: the harness's store, clock and caller. For a query or route the
// activity-only parts (publish, onFailure, app proofs) refuse as the gateway's do.
class HarnessContext : public ActivityContext {
 public:
  HarnessContext(PluginHarness::State& state, Db& db, const Caller& caller,
                 std::string organizationId, std::string activityType = {},
                 RequestCache* sharedCache = nullptr)
      : state_(state),
        db_(db, state.statements),
        keyring_(db_, state.masterKey),
        caller_(caller),
        organizationId_(std::move(organizationId)),
        activityId_(activityType.empty() ? std::string() : crypto::uuidV4()),
        activityType_(std::move(activityType)),
        cache_(sharedCache ? sharedCache : &ownCache_) {}

  const std::string& organizationId() const override { return organizationId_; }
  const Caller& caller() const override { return caller_; }
  Db& db() override { return db_; }
  Keyring& keyring() override { return keyring_; }
  int64_t nowMs() const override { return state_.options.nowMs; }
  std::string newId() override { return crypto::uuidV4(); }
  const std::string& signerPublicKey() const override { return state_.signerPublicKey; }
  const Services& services() const override { return state_.services; }
  RequestCache& requestCache() override { return *cache_; }
  crypto::EcdsaSignature signWithGatewayKey(const crypto::Digest& digest) override {
    return crypto::signEcdsa(crypto::Curve::kP256, state_.signerKey, digest);
  }
  crypto::EcdsaSignature signAsOidcIssuer(const crypto::Digest& digest) override {
    return crypto::signEcdsa(crypto::Curve::kP256, state_.oidcIssuerKey, digest);
  }
  crypto::SecretBytes openClientSecret(const std::string& envelopeHex,
                                       const std::string& field) override {
    auto envelope = fromHex(envelopeHex);
    auto opened =
        envelope ? quorum_envelope::open(state_.clientSecretKey, *envelope) : std::nullopt;
    if (!opened) throw invalidArgument("invalid field " + field + ": it does not open");
    return std::move(*opened);
  }
  crypto::SecretBytes openOnRampSecret(const std::string& bundle,
                                       const std::string& field) override {
    auto opened = bundles::openCredentialBundle(state_.onRampSecretKey, bundle);
    if (!opened) throw invalidArgument("invalid field " + field + ": it does not open");
    return std::move(*opened);
  }
  const std::string& activityId() const override { return activityId_; }
  const std::string& activityType() const override { return activityType_; }
  void publish(const std::string& event, const json::Object& payload) override {
    requireActivity("publish");
    state_.published.emplace_back(event, payload);
    for (const auto& [module, subscription] : state_.services.subscribers)
      if (subscription.first == event) subscription.second(*this, event, payload);
  }
  using ActivityContext::afterCommit;
  void afterCommit(AfterCommitCall call) override {
    requireActivity("afterCommit");
    calls.push_back(std::move(call));
  }
  void onFailure(std::function<void(Db&)> write) override {
    requireActivity("onFailure");
    failureWrites.push_back(std::move(write));
  }
  bool appProofsRequested() const override { return !activityType_.empty(); }
  void addAppProof(const std::string& proofPayload) override {
    requireActivity("addAppProof");
    state_.appProofs.push_back(proofPayload);
  }

  std::vector<std::function<void(Db&)>> failureWrites;
  std::vector<AfterCommitCall> calls;

 private:
  void requireActivity(const char* what) const {
    if (activityType_.empty())
      throw internalError(std::string(what) + " is only available while an activity runs");
  }

  PluginHarness::State& state_;
  RecordingDb db_;
  DbKeyring keyring_;
  const Caller& caller_;
  std::string organizationId_;
  std::string activityId_;
  std::string activityType_;
  RequestCache ownCache_;
  RequestCache* cache_;
};

}  // namespace

PluginHarness::PluginHarness(RegisterFunction registerPlugin, HarnessOptions options)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  if (!state_->options.settings) state_->options.settings = json::object();
  state_->database = std::make_unique<Database>(
      DatabaseConfig{.backend = Backend::kSqlite, .connection = (state_->dir / "signet.db")});
  state_->database->migrate("keyring", {keyringMigration(1), keyringRotationMigration(2)});
  HarnessRegistry registry(state_->registered, state_->services, state_->options.settings,
                           state_->dir.string());
  registerPlugin(registry);
  for (const auto& [module, list] : state_->registered.migrations)
    state_->database->migrate(module, list);
}

PluginHarness::~PluginHarness() {
  state_->database.reset();
  std::error_code ignored;
  std::filesystem::remove_all(state_->dir, ignored);
}

json::Object PluginHarness::submit(const std::string& type, const json::Object& parameters) {
  return state_->runActivity(type, parameters, nullptr);
}

PluginHarness::Decided PluginHarness::submitAfterFacts(const std::string& type,
                                                       const json::Object& parameters) {
  Decided d;
  d.facts = json::object();
  d.result = state_->runActivity(type, parameters, &d.facts);
  return d;
}

json::Object PluginHarness::State::runActivity(const std::string& type,
                                               const json::Object& parameters,
                                               json::Object* facts) {
  const ActivitySpec& spec = activity(type);
  checkParameterShapes(spec.parameters, parameters);
  statements.clear();
  appProofs.clear();
  json::Object result;
  std::vector<std::function<void(Db&)>> failureWrites;
  std::vector<AfterCommitCall> calls;
  try {
    database->transaction([&](Db& db) {
      RequestCache cache;             // shared by the facts and the handler, as in the gateway
      if (facts && spec.readAhead) {  // as on the gateway's snapshot, before the caller is known
        const Caller nobody;
        HarnessContext aheadCtx(*this, db, nobody, options.organizationId, type, &cache);
        spec.readAhead(aheadCtx, parameters);
      }
      if (facts && spec.facts) {
        HarnessContext factsCtx(*this, db, options.caller, options.organizationId, {}, &cache);
        *facts = spec.facts(factsCtx, parameters);
      }
      HarnessContext ctx(*this, db, options.caller, options.organizationId, type, &cache);
      try {
        result = spec.handler(ctx, parameters);
        calls = std::move(ctx.calls);
      } catch (...) {
        failureWrites = std::move(ctx.failureWrites);
        throw;
      }
    });
  } catch (...) {
    if (!failureWrites.empty())
      database->transaction([&](Db& db) {
        for (const auto& write : failureWrites) write(db);
      });
    throw;
  }
  // As the gateway does: the calls after the commit; when one fails, every undo write; then,
  // whatever the outcome, what the calls keep.
  std::exception_ptr failed;
  for (const auto& entry : calls) {
    try {
      entry.call();
    } catch (...) {
      failed = std::current_exception();
      break;
    }
  }
  bool keeps = false;
  for (const auto& entry : calls) keeps |= static_cast<bool>(entry.keep);
  if (failed || keeps)
    database->transaction([&](Db& db) {
      HarnessContext ctx(*this, db, options.caller, options.organizationId, type);
      if (failed)
        for (const auto& entry : calls)
          if (entry.undo) entry.undo(ctx);
      for (const auto& entry : calls)
        if (entry.keep) entry.keep(ctx);
    });
  if (failed) std::rethrow_exception(failed);
  return result;
}

json::Object PluginHarness::query(const std::string& path, const json::Object& body) {
  for (const auto& q : state_->registered.queries) {
    if (q.path != path) continue;
    state_->statements.clear();
    json::Object out;
    state_->database->read([&](Db& db) {
      HarnessContext ctx(*state_, db, state_->options.caller, state_->options.organizationId);
      out = q.handler(ctx, body);
    });
    return out;
  }
  throw notFound("the plugin registers no query " + path);
}

json::Object PluginHarness::facts(const std::string& type, const json::Object& parameters) {
  const ActivitySpec& spec = state_->activity(type);
  json::Object out = json::object();
  if (!spec.facts) return out;
  state_->statements.clear();
  state_->database->read([&](Db& db) {
    HarnessContext ctx(*state_, db, state_->options.caller, state_->options.organizationId);
    out = spec.facts(ctx, parameters);
  });
  return out;
}

HttpReply PluginHarness::route(const std::string& method, const std::string& subpath,
                               const std::string& body) {
  for (const auto& r : state_->registered.routes) {
    if (r.method != method || r.path != subpath) continue;
    // A public route's context has no caller and no organization, as in the gateway.
    const bool stamped = r.access == RouteAccess::kStamped;
    Caller nobody;
    HttpCall call{.method = method,
                  .path = subpath,
                  .subpath = subpath,
                  .query = {},
                  .headers = {},
                  .body = body};
    HttpReply reply;
    state_->statements.clear();
    state_->database->transaction([&](Db& db) {
      HarnessContext ctx(*state_, db, stamped ? state_->options.caller : nobody,
                         stamped ? state_->options.organizationId : std::string());
      reply = r.handler(ctx, call);
    });
    return reply;
  }
  throw notFound("the plugin registers no route " + method + " " + subpath);
}

const std::vector<std::string>& PluginHarness::statements() const {
  return state_->statements;
}
const std::vector<ActivitySpec>& PluginHarness::activities() const {
  return state_->registered.activities;
}
const std::vector<QuerySpec>& PluginHarness::queries() const {
  return state_->registered.queries;
}
const std::vector<RouteSpec>& PluginHarness::routes() const {
  return state_->registered.routes;
}
const std::vector<ListenerSpec>& PluginHarness::listeners() const {
  return state_->registered.listeners;
}
const std::vector<std::string>& PluginHarness::factKeywords() const {
  return state_->registered.factKeywords;
}
const std::vector<std::string>& PluginHarness::startupNotices() const {
  return state_->registered.startupNotices;
}
const std::vector<std::pair<std::string, json::Object>>& PluginHarness::published() const {
  return state_->published;
}
const std::vector<std::string>& PluginHarness::appProofs() const {
  return state_->appProofs;
}

void PluginHarness::write(const std::function<void(Db&)>& fn) {
  state_->database->transaction(fn);
}
void PluginHarness::read(const std::function<void(Db&)>& fn) {
  state_->database->read(fn);
}
void PluginHarness::setNowMs(int64_t nowMs) {
  state_->options.nowMs = nowMs;
}
void PluginHarness::advanceMs(int64_t ms) {
  state_->options.nowMs += ms;
}
Caller& PluginHarness::caller() {
  return state_->options.caller;
}
void PluginHarness::setOrganizationId(std::string organizationId) {
  state_->options.organizationId = std::move(organizationId);
}
Services& PluginHarness::services() {
  return state_->services;
}
const std::string& PluginHarness::signerPublicKey() const {
  return state_->signerPublicKey;
}

}  // namespace signet::testkit
