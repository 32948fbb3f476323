// signet plugins list: every module found, its version, whether it is enabled, and the paths it
// serves. Plugins are read from their descriptors only: listing runs no plugin code, so it is
// safe on a directory nobody has vetted yet. Libraries the gateway would refuse are listed with
// the reason, and make the command exit 1.
#include <iostream>
#include <set>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"

namespace signet::cli {

int pluginsListCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "plugin-dir"}, {});
  std::filesystem::path pluginDir =
      args.get("plugin-dir").value_or(Config::defaultPluginDir().string());
  std::set<std::string> enabled;
  if (auto dir = args.get("data-dir")) {
    Config config = Config::load(*dir, args.get("config").value_or(""));
    if (!args.get("plugin-dir")) pluginDir = config.pluginDir;
    enabled.insert(config.enabledPlugins.begin(), config.enabledPlugins.end());
  }

  PluginHost host;
  std::vector<ModuleInfo> modules{coreModule()};
  for (auto& m : host.discover(pluginDir, {})) {
    m.enabled = enabled.count(m.name) > 0;
    modules.push_back(std::move(m));
  }

  std::cout << "plugin directory: " << pluginDir.string() << "\n";
  for (const auto& m : modules) {
    std::cout << "\n"
              << m.name << " " << m.version
              << (m.builtin ? " (built in, always enabled)"
                            : (m.enabled ? " (enabled)"
                                         : (args.get("data-dir")
                                                ? " (not enabled)"
                                                : " (pass --data-dir to see if enabled)")))
              << "\n";
    if (!m.path.empty()) std::cout << "  library: " << m.path << "\n";
    for (const auto& a : m.activities)
      std::cout << "  activity " << a.type << "  POST /public/v1/submit/" << a.path << "\n";
    for (const auto& q : m.queries)
      std::cout << "  query    POST /public/v1/query/" << q.path << "\n";
    for (const auto& p : m.declaredSubmitPaths)
      std::cout << "  submit   POST /public/v1/submit/" << p << "\n";
    for (const auto& p : m.declaredQueryPaths)
      std::cout << "  query    POST /public/v1/query/" << p << "\n";
  }
  for (const auto& p : host.problems())
    std::cout << "\nrefused " << p.path << ": " << p.message << "\n";
  return host.problems().empty() ? 0 : 1;
}

}  // namespace signet::cli
