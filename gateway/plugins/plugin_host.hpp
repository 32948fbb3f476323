// Finds plugin libraries in a directory and loads them with Boost.DLL. A library is first
// listed without running its code (its "signet" section must export the descriptor); then its
// plain-C descriptor is read and its ABI version checked before any C++ type is trusted.
#pragma once

#include <boost/dll/shared_library.hpp>

#include <filesystem>
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
  // Loads every plugin library in `dir` into modules (marked enabled when named in
  // `enabled`). Libraries that cannot be used are reported in problems(), not thrown; the
  // caller decides whether a problem is fatal (it is when the plugin is enabled).
  std::vector<ModuleInfo> discover(const std::filesystem::path& dir,
                                   const std::set<std::string>& enabled,
                                   const ModuleEnvironment& environment = {});
  const std::vector<PluginProblem>& problems() const { return problems_; }

 private:
  std::vector<boost::dll::shared_library> libraries_;  // kept loaded for the process
  std::vector<PluginProblem> problems_;
};

// The file name a plugin called `name` would have: libsignet-plugin-<name>.so.
std::string pluginFileName(const std::string& name);

}  // namespace signet
