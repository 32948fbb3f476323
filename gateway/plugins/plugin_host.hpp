// Finds plugin libraries in a directory and loads the enabled ones with Boost.DLL. Every
// library is first read as a file: its descriptor (name, version, paths, build signature) and
// its SHA-256 come from the bytes on disk, and a disabled plugin is known from those alone.
// Only an enabled plugin whose build matches this gateway's and whose pin (if any) matches is
// loaded, from the very file descriptor that was hashed, and its registration run.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catalog.hpp"

namespace signet {

struct PluginProblem {
  std::string path;
  std::string message;
};

class PluginHost {
 public:
  // The modules of every plugin library in `dir`, enabled when named in `enabled`. Libraries
  // that cannot be used are reported in problems(), not thrown: the gateway refuses to start
  // with any, `signet plugins list` shows them. `pins` maps plugin names to "sha256:<hex>".
  std::vector<ModuleInfo> discover(const std::filesystem::path& dir,
                                   const std::set<std::string>& enabled,
                                   const ModuleEnvironment& environment = {},
                                   const std::map<std::string, std::string>& pins = {});
  const std::vector<PluginProblem>& problems() const { return problems_; }

 private:
  std::vector<PluginProblem> problems_;
};

// The file name a plugin called `name` has: libsignet-plugin-<name>.so.
std::string pluginFileName(const std::string& name);

}  // namespace signet
