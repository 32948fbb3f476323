#include "catalog.hpp"

#include <algorithm>

#include "policy/policy_store.hpp"

namespace signet {

ModuleRegistry::ModuleRegistry(ModuleInfo& module, const ModuleEnvironment& environment)
    : module_(module), dataDir_(environment.dataDir) {
  auto it = environment.settings.find(module.name);
  settings_ = it != environment.settings.end() ? it->second : json::object();
}

void ModuleRegistry::startupNotice(const std::string& line) {
  module_.startupNotices.push_back(line);
}

void ModuleRegistry::activity(ActivitySpec spec) {
  if (spec.type.empty() || spec.path.empty() || spec.intentKey.empty() || spec.resultKey.empty() ||
      !spec.handler)
    throw internalError("module '" + module_.name + "' registered an incomplete activity '" +
                        spec.type + "'");
  // A deprecated default must say since when: responses carry it as Deprecation.
  if (spec.rollout.state == RolloutState::kDeprecated && spec.rollout.deprecatedAt <= 0)
    throw internalError("module '" + module_.name + "' declares " + spec.type +
                        " deprecated by default without rollout.deprecatedAt");
  spec.handler = guard("handler of " + spec.type, std::move(spec.handler));
  if (spec.facts) spec.facts = guard("policy facts of " + spec.type, std::move(spec.facts));
  if (spec.prepare) spec.prepare = guard("preparation of " + spec.type, std::move(spec.prepare));
  if (spec.readAhead)
    spec.readAhead = guard("reads ahead of " + spec.type, std::move(spec.readAhead));
  module_.activities.push_back(std::move(spec));
}

void ModuleRegistry::query(QuerySpec spec) {
  if (spec.path.empty() || !spec.handler)
    throw internalError("module '" + module_.name + "' registered an incomplete query");
  spec.handler = guard("query " + spec.path, std::move(spec.handler));
  module_.queries.push_back(std::move(spec));
}

// How a route is written in a descriptor: "GET /jwks public".
std::string routeLine(const RouteSpec& r) {
  const char* access = r.access == RouteAccess::kPublic    ? " public"
                       : r.access == RouteAccess::kStamped ? " stamped"
                                                           : " detached";
  return r.method + " " + r.path + access;
}

namespace {
void checkRoute(const std::string& module, const RouteSpec& spec) {
  if (spec.method.empty() || spec.path.empty() || spec.path[0] != '/' || !spec.handler)
    throw internalError("module '" + module + "' registered an incomplete route '" + spec.method +
                        " " + spec.path + "' (a method, a path from '/', a handler)");
  // The stamp covers the body, so a stamped route takes a POST, as the API's paths do.
  if (spec.access == RouteAccess::kStamped && spec.method != "POST")
    throw internalError("module '" + module + "' registered stamped route '" + spec.method + " " +
                        spec.path + "'; stamped routes are POST");
}
}  // namespace

void ModuleRegistry::route(RouteSpec spec) {
  checkRoute(module_.name, spec);
  if (spec.atRoot && spec.path.rfind("/public/v1/discovery/", 0) != 0)
    throw internalError("module '" + module_.name + "' registered route '" + spec.path +
                        "' at the root; only /public/v1/discovery/ paths may be");
  spec.handler = guard("route " + spec.method + " " + spec.path, std::move(spec.handler));
  module_.routes.push_back(std::move(spec));
}

void ModuleRegistry::listener(ListenerSpec spec) {
  if (spec.name.empty() || spec.address.empty())
    throw internalError("module '" + module_.name +
                        "' registered a listener without a name or "
                        "an address");
  for (auto& r : spec.routes) {
    checkRoute(module_.name, r);
    r.handler =
        guard("listener " + spec.name + " route " + r.method + " " + r.path, std::move(r.handler));
  }
  module_.listeners.push_back(std::move(spec));
}

void ModuleRegistry::migrations(const std::string& module, std::vector<Migration> list) {
  module_.migrations.emplace_back(module, std::move(list));
}

void ModuleRegistry::walletCreator(WalletCreator creator) {
  module_.walletCreator = guard("wallet creator", std::move(creator));
}

void ModuleRegistry::organizationDeletionHook(OrganizationDeletionHook hook) {
  module_.deletionHooks.push_back(guard("organization deletion hook", std::move(hook)));
}

void ModuleRegistry::subscribe(const std::string& event, EventHandler handler) {
  module_.subscriptions.emplace_back(event, guard("subscriber to " + event, std::move(handler)));
}

void ModuleRegistry::subOrganizationFilter(SubOrganizationFilter filter) {
  filter.condition = guard("list_suborgs filter " + filter.filterType, std::move(filter.condition));
  module_.subOrganizationFilters.push_back(std::move(filter));
}

void ModuleRegistry::factKeywords(std::vector<std::string> keywords) {
  for (const auto& k : keywords)
    if (policy::builtinKeywords().count(k))
      throw internalError("module '" + module_.name + "' declares policy keyword '" + k +
                          "', which belongs to the core");
  module_.factKeywords.insert(module_.factKeywords.end(), keywords.begin(), keywords.end());
}

void ModuleRegistry::factProvider(std::vector<std::string> keywords, FactProvider provider) {
  factKeywords(std::move(keywords));
  module_.factProviders.push_back(guard("policy facts", std::move(provider)));
}

void ModuleRegistry::sessionProfileLookup(SessionProfileLookup lookup) {
  module_.sessionProfileLookup = guard("session profile lookup", std::move(lookup));
}

void ModuleRegistry::oidcVerifier(OidcVerifier verifier) {
  module_.oidcVerifier = guard("OIDC token verifier", std::move(verifier));
}

void ModuleRegistry::activityEvents(ActivityEventsSpec spec) {
  if (module_.activityEvents.handler)
    throw internalError("module '" + module_.name + "' registered two activity event handlers");
  if (!spec.handler)
    throw internalError("module '" + module_.name +
                        "' registered activity events without a handler");
  // Two parameters, bound to the organization and its parent: a query naming more, or fewer,
  // would fail at the first activity instead of here.
  if (!spec.interestQuery.empty() &&
      std::count(spec.interestQuery.begin(), spec.interestQuery.end(), '?') != 2)
    throw internalError("module '" + module_.name +
                        "' registered an activity event interest query without exactly two "
                        "parameters (the organization and its parent): " +
                        spec.interestQuery);
  module_.activityEvents.handler = guard("activity event handler", std::move(spec.handler));
  module_.activityEvents.interestQuery = std::move(spec.interestQuery);
}

void ModuleRegistry::command(CommandSpec spec) {
  if (spec.name.empty() || !spec.run)
    throw internalError("module '" + module_.name +
                        "' registered a command without a name or body");
  spec.run = guard("command " + spec.name, std::move(spec.run));
  module_.commands.push_back(std::move(spec));
}

void ModuleRegistry::gauge(GaugeSpec spec) {
  // signet_<module>_..., the module's name with dashes as underscores.
  std::string prefix = "signet_" + module_.name + "_";
  std::replace(prefix.begin(), prefix.end(), '-', '_');
  bool wellFormed = spec.name.size() > prefix.size() && spec.name.rfind(prefix, 0) == 0 &&
                    std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
                      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
                    });
  if (!wellFormed || !spec.read)
    throw internalError("module '" + module_.name + "' registered gauge '" + spec.name +
                        "': a gauge needs a reader and a name of [a-z0-9_] starting with " +
                        prefix);
  for (const auto& g : module_.gauges)
    if (g.name == spec.name)
      throw internalError("module '" + module_.name + "' registered gauge '" + spec.name +
                          "' twice");
  spec.read = guard("gauge " + spec.name, std::move(spec.read));
  module_.gauges.push_back(std::move(spec));
}

void ModuleRegistry::worker(WorkerSpec spec) {
  if (spec.name.empty() || !spec.run)
    throw internalError("module '" + module_.name + "' registered a worker without a name or body");
  spec.run = guard("worker " + spec.name, std::move(spec.run));
  module_.workers.push_back(std::move(spec));
}

void Catalog::add(ModuleInfo module) {
  for (const auto& m : modules_)
    if (m->name == module.name)
      throw failedPrecondition("two modules are named '" + module.name +
                               "': " + (m->path.empty() ? "built-in" : m->path) + " and " +
                               (module.path.empty() ? "built-in" : module.path));
  modules_.push_back(std::make_unique<ModuleInfo>(std::move(module)));
}

void Catalog::index() {
  submit_.clear();
  queries_.clear();
  types_.clear();
  rootRoutes_.clear();
  IdentityServices identity = std::move(services_.identity);  // the core's, kept
  GatewayFacts facts = std::move(services_.gateway);
  services_ = Services{};
  services_.identity = std::move(identity);
  services_.gateway = std::move(facts);
  std::map<std::string, const ModuleInfo*> filterOwner;
  std::map<std::string, const ModuleInfo*> typeOwner;
  std::map<std::string, const ModuleInfo*> queryOwner;
  std::map<std::string, const ModuleInfo*> keywordOwner;
  for (const auto& m : modules_) {
    if (!m->enabled) continue;
    for (const auto& a : m->activities) {
      auto [it, fresh] = typeOwner.emplace(a.type, m.get());
      if (!fresh)
        throw failedPrecondition("activity type " + a.type + " is registered by both '" +
                                 it->second->name + "' and '" + m->name + "'");
      submit_[a.path].push_back(&a);
      types_[a.type] = &a;
    }
    for (const auto& q : m->queries) {
      auto [it, fresh] = queryOwner.emplace(q.path, m.get());
      if (!fresh)
        throw failedPrecondition("query " + q.path + " is registered by both '" + it->second->name +
                                 "' and '" + m->name + "'");
      queries_[q.path] = &q;
    }
    if (m->walletCreator) {
      if (services_.createWallet)
        throw failedPrecondition("both '" + services_.walletProvider + "' and '" + m->name +
                                 "' provide wallet creation; enable only one");
      services_.createWallet = m->walletCreator;
      services_.walletProvider = m->name;
    }
    for (const auto& hook : m->deletionHooks) services_.deletionHooks.emplace_back(m->name, hook);
    for (const auto& provider : m->factProviders)
      services_.factProviders.emplace_back(m->name, provider);
    for (const auto& k : m->factKeywords) {
      auto [it, fresh] = keywordOwner.emplace(k, m.get());
      if (!fresh)
        throw failedPrecondition("modules '" + it->second->name + "' and '" + m->name +
                                 "' both provide policy keyword '" + k + "'");
      services_.factKeywords.insert(k);
    }
    if (m->sessionProfileLookup) services_.sessionProfileScope = m->sessionProfileLookup;
    if (m->oidcVerifier) {
      if (services_.verifyOidcToken)
        throw failedPrecondition("two enabled modules verify OIDC tokens; '" + m->name +
                                 "' is the second: enable only one");
      services_.verifyOidcToken = m->oidcVerifier;
    }
    for (const auto& [event, handler] : m->subscriptions)
      services_.subscribers.push_back({m->name, {event, handler}});
    if (m->activityEvents.handler)
      services_.activityEventSubscribers.emplace_back(m->name, m->activityEvents);
    for (const auto& r : m->routes) {
      if (!r.atRoot) continue;
      auto [it, fresh] = rootRoutes_.emplace(std::make_pair(r.method, r.path), &r);
      if (!fresh)
        throw failedPrecondition("route " + r.method + " " + r.path +
                                 " is registered by two modules; '" + m->name + "' is the second");
    }
    for (const auto& f : m->subOrganizationFilters) {
      auto [it, fresh] = filterOwner.emplace(f.filterType, m.get());
      if (!fresh)
        throw failedPrecondition("list_suborgs filter " + f.filterType + " is provided by both '" +
                                 it->second->name + "' and '" + m->name + "'");
      services_.subOrganizationFilters.emplace_back(m->name, f);
    }
  }
}

std::vector<const ActivitySpec*> Catalog::activitiesAt(const std::string& path) const {
  auto it = submit_.find(path);
  return it == submit_.end() ? std::vector<const ActivitySpec*>{} : it->second;
}

const RouteSpec* Catalog::rootRoute(const std::string& method, const std::string& path) const {
  auto it = rootRoutes_.find({method, path});
  return it == rootRoutes_.end() ? nullptr : it->second;
}

const ActivitySpec* Catalog::activityOfType(const std::string& type) const {
  auto it = types_.find(type);
  return it == types_.end() ? nullptr : it->second;
}

const QuerySpec* Catalog::query(const std::string& path) const {
  auto it = queries_.find(path);
  return it == queries_.end() ? nullptr : it->second;
}

const RouteSpec* Catalog::route(const std::string& module, const std::string& method,
                                const std::string& subpath) const {
  for (const auto& m : modules_) {
    if (m->name != module || !m->enabled) continue;
    for (const auto& r : m->routes)
      if (r.method == method && r.path == subpath) return &r;
  }
  return nullptr;
}

Error Catalog::unservedRoute(const std::string& module, const std::string& method,
                             const std::string& path) const {
  for (const auto& m : modules_)
    if (m->name == module && !m->enabled && !m->builtin)
      return Error(Code::kUnimplemented, path + " is served by plugin '" + module +
                                             "', which is not enabled in this gateway's config "
                                             "(plugins.enabled)");
  return notFound("unknown path " + method + " " + path);
}

Error Catalog::unservedPath(const std::string& kind, const std::string& path) const {
  const std::string full = "/public/v1/" + kind + "/" + path;
  for (const auto& m : modules_) {
    if (m->enabled) continue;
    bool serves = false;
    for (const auto& p : m->declaredSubmitPaths) serves = serves || (kind == "submit" && p == path);
    for (const auto& p : m->declaredQueryPaths) serves = serves || (kind == "query" && p == path);
    if (serves)
      return Error(Code::kUnimplemented, full + " is served by plugin '" + m->name +
                                             "', which is not enabled in this gateway's config "
                                             "(plugins.enabled)");
  }
  return notFound("unknown path " + full);
}

}  // namespace signet
