#include "plugin_host.hpp"

#include <boost/dll/library_info.hpp>

#include <algorithm>

namespace signet {

namespace {
constexpr const char* kPrefix = "libsignet-plugin-";
constexpr const char* kEntry = "signet_plugin_descriptor";
}  // namespace

std::string pluginFileName(const std::string& name) {
  return kPrefix + name + ".so";
}

std::vector<ModuleInfo> PluginHost::discover(const std::filesystem::path& dir,
                                             const std::set<std::string>& enabled,
                                             const ModuleEnvironment& environment) {
  std::vector<ModuleInfo> found;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return found;
  std::vector<std::filesystem::path> candidates;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind(kPrefix, 0) == 0 && entry.path().extension() == ".so")
      candidates.push_back(entry.path());
  }
  std::sort(candidates.begin(), candidates.end());

  for (const auto& path : candidates) {
    try {
      // Listing the section reads the ELF file; nothing in the library runs.
      boost::dll::library_info info(boost::filesystem::path(path.string()));
      auto symbols = info.symbols("signet");
      if (std::find(symbols.begin(), symbols.end(), kEntry) == symbols.end()) {
        problems_.push_back({path.string(),
                             "not a Signet plugin: no signet_plugin_descriptor in "
                             "its \"signet\" section"});
        continue;
      }
      boost::dll::shared_library lib(boost::filesystem::path(path.string()),
                                     boost::dll::load_mode::rtld_local);
      auto entry = lib.get_alias<PluginEntry>(kEntry);
      const PluginDescriptor* d = entry();
      if (!d || !d->name || !d->version) {
        problems_.push_back({path.string(), "the plugin returned no descriptor"});
        continue;
      }
      if (d->abiVersion != kPluginAbiVersion) {
        problems_.push_back(
            {path.string(),
             std::string("plugin '") + d->name + "' " + d->version + " was built for plugin ABI " +
                 std::to_string(d->abiVersion) + ", but this gateway speaks ABI " +
                 std::to_string(kPluginAbiVersion) + "; rebuild it against this SDK"});
        continue;
      }
      ModuleInfo module;
      module.name = d->name;
      module.version = d->version;
      module.description = d->description ? d->description : "";
      module.path = path.string();
      module.enabled = enabled.count(module.name) > 0;
      ModuleRegistry registry(module, environment);
      d->registerPlugin(registry);
      found.push_back(std::move(module));
      libraries_.push_back(std::move(lib));
    } catch (const std::exception& e) {
      problems_.push_back({path.string(), std::string("could not load: ") + e.what()});
    }
  }
  return found;
}

}  // namespace signet
