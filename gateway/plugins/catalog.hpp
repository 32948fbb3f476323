// Everything the modules registered: the core's built-ins and each plugin found on disk,
// enabled or not. Requests are routed through the index of enabled modules only; a disabled
// module is still known so that its paths answer an error that names it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugins/plugin_guard.hpp"
#include "signet/plugin.hpp"

namespace signet {

struct ModuleInfo {
  std::string name;
  std::string version;
  std::string description;
  std::string path;  // the shared library; empty for built-ins
  bool builtin = false;
  bool enabled = false;
  // A plugin's library, loaded only when it is enabled. Every callable it registers holds it
  // too (plugin_guard.hpp), so the code stays mapped while anything it produced is alive.
  std::shared_ptr<void> library;
  // The paths the plugin's descriptor declares: all that is known of a disabled plugin, whose
  // code never runs.
  std::vector<std::string> declaredSubmitPaths;
  std::vector<std::string> declaredQueryPaths;
  std::vector<std::string> declaredRoutes;     // "GET /jwks public"
  std::vector<std::string> declaredListeners;  // names
  std::vector<RouteSpec> routes;               // served under /plugins/<name>
  std::vector<ListenerSpec> listeners;
  std::vector<ActivitySpec> activities;
  std::vector<QuerySpec> queries;
  std::vector<std::pair<std::string, std::vector<Migration>>> migrations;
  WalletCreator walletCreator;
  std::vector<OrganizationDeletionHook> deletionHooks;
  std::vector<std::pair<std::string, EventHandler>> subscriptions;
  std::vector<SubOrganizationFilter> subOrganizationFilters;
  std::vector<FactProvider> factProviders;
  std::vector<std::string> factKeywords;
  SessionProfileLookup sessionProfileLookup;
  OidcVerifier oidcVerifier;
  ActivityEventsSpec activityEvents;  // no handler: the module takes no events
  std::vector<WorkerSpec> workers;
  std::vector<CommandSpec> commands;
  std::vector<GaugeSpec> gauges;
  std::vector<std::string> startupNotices;
};

// What a module is given at registration: its settings (plugins.settings.<name>) and the
// data directory.
struct ModuleEnvironment {
  std::map<std::string, json::Object> settings;
  std::string dataDir;
};

// How a route is written in a descriptor and listed: "GET /jwks public".
std::string routeLine(const RouteSpec& route);

// Collects one module's registrations.
class ModuleRegistry : public Registry {
 public:
  ModuleRegistry(ModuleInfo& module, const ModuleEnvironment& environment);
  void activity(ActivitySpec spec) override;
  void query(QuerySpec spec) override;
  void route(RouteSpec spec) override;
  void listener(ListenerSpec spec) override;
  void migrations(const std::string& module, std::vector<Migration> list) override;
  void walletCreator(WalletCreator creator) override;
  void organizationDeletionHook(OrganizationDeletionHook hook) override;
  void subscribe(const std::string& event, EventHandler handler) override;
  void subOrganizationFilter(SubOrganizationFilter filter) override;
  void factKeywords(std::vector<std::string> keywords) override;
  void factProvider(std::vector<std::string> keywords, FactProvider provider) override;
  void sessionProfileLookup(SessionProfileLookup lookup) override;
  void oidcVerifier(OidcVerifier verifier) override;
  void activityEvents(ActivityEventsSpec spec) override;
  void worker(WorkerSpec spec) override;
  void command(CommandSpec spec) override;
  void gauge(GaugeSpec spec) override;
  const json::Object& settings() const override { return settings_; }
  const std::string& dataDir() const override { return dataDir_; }
  void startupNotice(const std::string& line) override;

 private:
  // `f` as the module registered it, wrapped when the module is a plugin (plugin_guard.hpp).
  template <class F>
  F guard(const std::string& site, F f) const {
    return guarded(module_.library, module_.name, site, std::move(f));
  }

  ModuleInfo& module_;
  json::Object settings_;
  std::string dataDir_;
};

class Catalog {
 public:
  void add(ModuleInfo module);
  // Builds the routing index over enabled modules; two modules claiming the same activity
  // type or query path is a configuration error naming both.
  void index();

  const std::vector<std::unique_ptr<ModuleInfo>>& modules() const { return modules_; }
  std::vector<const ActivitySpec*> activitiesAt(const std::string& path) const;
  // The enabled spec for an activity type, or nullptr.
  const ActivitySpec* activityOfType(const std::string& type) const;
  const QuerySpec* query(const std::string& path) const;
  // The enabled module's route served at its own path (RouteSpec::atRoot), or nullptr.
  const RouteSpec* rootRoute(const std::string& method, const std::string& path) const;
  // The enabled module `module`'s route for method and subpath, or nullptr.
  const RouteSpec* route(const std::string& module, const std::string& method,
                         const std::string& subpath) const;
  // The error for a path no enabled module serves: it names the disabled plugin that would
  // serve it, if there is one. `kind` is "submit" or "query".
  Error unservedPath(const std::string& kind, const std::string& path) const;
  // The same for /plugins/<module>/...: names the plugin when it is present but disabled.
  Error unservedRoute(const std::string& module, const std::string& method,
                      const std::string& path) const;
  // What the enabled modules offer each other; built by index().
  const Services& services() const { return services_; }
  // The core's identity services, kept across index().
  void provideIdentity(IdentityServices identity) { services_.identity = std::move(identity); }
  void provideGatewayFacts(GatewayFacts facts) { services_.gateway = std::move(facts); }

 private:
  std::vector<std::unique_ptr<ModuleInfo>> modules_;
  std::map<std::string, std::vector<const ActivitySpec*>> submit_;
  std::map<std::string, const QuerySpec*> queries_;
  std::map<std::string, const ActivitySpec*> types_;
  std::map<std::pair<std::string, std::string>, const RouteSpec*> rootRoutes_;  // (method, path)
  Services services_;
};

}  // namespace signet
