// signet plugins list: every module found, its version, whether it is enabled, and the paths it
// serves. Plugins are read from their descriptors only: listing runs no plugin code, so it is
// safe on a directory nobody has vetted yet. Libraries the gateway would refuse are listed with
// the reason, and make the command exit 1.
#include <Poco/JSON/ParseHandler.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <algorithm>
#include <fstream>
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
    for (const auto& r : m.declaredRoutes) {
      auto space = r.find(' ');  // "GET /jwks public" -> "GET /plugins/<name>/jwks (public)"
      auto last = r.rfind(' ');
      std::cout << "  route    " << r.substr(0, space) << " /plugins/" << m.name
                << r.substr(space + 1, last - space - 1) << " (" << r.substr(last + 1) << ")\n";
    }
    for (const auto& l : m.declaredListeners)
      std::cout << "  listener " << l << " (its own address, from plugins.settings." << m.name
                << ")\n";
  }
  for (const auto& p : host.problems())
    std::cout << "\nrefused " << p.path << ": " << p.message << "\n";
  return host.problems().empty() ? 0 : 1;
}

namespace {

// Adds or removes `name` in plugins.enabled of the config file, keeping every other field and
// their order; written to a temporary file and renamed, so a failure leaves the old file whole.
int setEnabled(const std::vector<std::string>& argv, bool enable) {
  Args args(argv, {"data-dir", "config"}, {}, {"the plugin's NAME"});
  const std::string& name = args.word(0);
  std::filesystem::path dir = args.require("data-dir");
  std::filesystem::path file = args.get("config").value_or((dir / "signet.json").string());
  Config config = Config::load(dir, file);  // refuses a config that is already wrong

  if (enable) {
    PluginHost host;
    bool found = false;
    for (const auto& m : host.discover(config.pluginDir, {})) found = found || m.name == name;
    if (!found)
      throw UsageError("plugin '" + name + "' is not in " + config.pluginDir.string() +
                       " (signet plugins list shows what is)");
  }
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Poco::JSON::Parser parser(new Poco::JSON::ParseHandler(true));  // keeps the fields' order
  auto root = parser.parse(text).extract<Poco::JSON::Object::Ptr>();
  auto plugins = root->getObject("plugins");
  if (!plugins) {
    plugins = new Poco::JSON::Object(true);
    root->set("plugins", plugins);
  }
  std::vector<std::string> enabled = config.enabledPlugins;
  bool was = std::find(enabled.begin(), enabled.end(), name) != enabled.end();
  if (was == enable) {
    std::cout << "plugin '" << name << "' is already " << (enable ? "enabled" : "disabled")
              << " in " << file.string() << "\n";
    return 0;
  }
  if (enable)
    enabled.push_back(name);
  else
    enabled.erase(std::find(enabled.begin(), enabled.end(), name));
  plugins->set("enabled", json::stringArray(enabled));

  std::filesystem::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary);
    Poco::JSON::Stringifier::stringify(root, out, 2);
    out << "\n";
    if (!out) throw std::runtime_error("could not write " + temporary.string());
  }
  std::filesystem::rename(temporary, file);
  std::cout << (enable ? "enabled" : "disabled") << " plugin '" << name << "' in " << file.string()
            << "; restart signet serve for it to take effect\n";
  return 0;
}

}  // namespace

int pluginsEnableCommand(const std::vector<std::string>& argv) {
  return setEnabled(argv, true);
}

int pluginsDisableCommand(const std::vector<std::string>& argv) {
  return setEnabled(argv, false);
}

}  // namespace signet::cli
