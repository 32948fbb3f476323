#include "plugin_host.hpp"

#include <stdlib.h>

#include <dlfcn.h>
#include <algorithm>

#include <boost/dll/shared_library.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "elf_section.hpp"
#include "plugin_manifest.hpp"
#include "signet/crypto.hpp"
#include "signet/encoding.hpp"

namespace signet {

namespace {

constexpr const char* kPrefix = "libsignet-plugin-";
constexpr const char* kRegisterSymbol = "signet_plugin_register";
constexpr size_t kMaxLibraryBytes = size_t(1) << 30;

std::string readWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open: " + std::string(std::strerror(errno)));
  std::string bytes;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.append(buffer, static_cast<size_t>(in.gcount()));
    if (bytes.size() > kMaxLibraryBytes)
      throw std::runtime_error("larger than " + std::to_string(kMaxLibraryBytes) + " bytes");
  }
  if (in.bad()) throw std::runtime_error("cannot read: " + std::string(std::strerror(errno)));
  return bytes;
}

// Loads exactly the bytes that were read, hashed and checked: they are written to a fresh
// private folder (under the data directory, which the gateway owns) and loaded from there, so
// that a file swapped in the plugin directory after the checks is never what runs. The copy is
// removed once loaded; the mapping stays. Loading "/proc/self/fd/N" instead would be shorter,
// but the dynamic loader recognises an already loaded library by that name, and N is reused.
std::shared_ptr<boost::dll::shared_library> loadVerified(const std::string& bytes,
                                                         const std::filesystem::path& base,
                                                         const std::string& fileName) {
  std::string pattern = (base / ".signet-plugin-load-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot make a folder in " + base.string() +
                             " to load from: " + std::strerror(errno));
  std::filesystem::path dir = pattern, copy = dir / fileName;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  {
    std::ofstream out(copy, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + copy.string());
  }
  std::filesystem::permissions(
      copy, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  // RTLD_NODELETE: the code stays mapped until the process exits, even once nothing holds the
  // library. A plugin's statics and thread-locals are then never left pointing into unmapped
  // code or data, and what they hold at exit is still reachable (LeakSanitizer, which the
  // sanitizer build runs, would otherwise report it as lost when the library goes).
  return std::make_shared<boost::dll::shared_library>(
      boost::filesystem::path(copy.string()),
      boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now |
          static_cast<boost::dll::load_mode::type>(RTLD_NODELETE));
}

std::string describeException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
}

// Where a plugin's registrations differ from what its descriptor declares.
std::optional<std::string> registrationMismatch(const ModuleInfo& m) {
  // A listener may go unregistered (its address comes from settings that may be absent); every
  // other declaration must be registered.
  auto compare = [&](const char* kind, std::set<std::string> registered,
                     const std::vector<std::string>& declared,
                     bool mayOmit = false) -> std::optional<std::string> {
    std::set<std::string> said(declared.begin(), declared.end());
    for (const auto& p : registered)
      if (!said.count(p))
        return std::string("registers ") + kind + " '" + p +
               "', which its descriptor does not declare";
    if (mayOmit) return std::nullopt;
    for (const auto& p : said)
      if (!registered.count(p))
        return std::string("declares ") + kind + " '" + p + "' but does not register it";
    return std::nullopt;
  };
  std::set<std::string> submits, queries, routes, listeners;
  for (const auto& a : m.activities) submits.insert(a.path);
  for (const auto& q : m.queries) queries.insert(q.path);
  for (const auto& r : m.routes) routes.insert(routeLine(r));
  for (const auto& l : m.listeners) listeners.insert(l.name);
  if (auto why = compare("submit", submits, m.declaredSubmitPaths)) return why;
  if (auto why = compare("query", queries, m.declaredQueryPaths)) return why;
  if (auto why = compare("route", routes, m.declaredRoutes)) return why;
  return compare("listener", listeners, m.declaredListeners, /*mayOmit=*/true);
}

}  // namespace

std::string pluginFileName(const std::string& name) {
  return kPrefix + name + ".so";
}

std::vector<ModuleInfo> PluginHost::discover(const std::filesystem::path& dir,
                                             const std::set<std::string>& enabled,
                                             const ModuleEnvironment& environment,
                                             const std::map<std::string, std::string>& pins) {
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

  std::map<std::string, std::string> seen;  // plugin name -> path
  for (const auto& path : candidates) {
    const std::string where = path.string();
    auto refuse = [&](const std::string& message) { problems_.push_back({where, message}); };
    std::string bytes;
    PluginManifest manifest;
    try {
      bytes = readWhole(path);
      auto section = elfSection(bytes, kPluginDescriptorSection);
      if (!section) {
        refuse(std::string("not a Signet plugin: it has no ") + kPluginDescriptorSection +
               " section (declare the plugin with SIGNET_PLUGIN)");
        continue;
      }
      manifest = parsePluginManifest(*section);
    } catch (const std::exception& e) {
      refuse(std::string("not a Signet plugin: ") + e.what());
      continue;
    }
    if (auto [it, fresh] = seen.emplace(manifest.name, where); !fresh) {
      refuse("a second plugin named '" + manifest.name + "' (the first is " + it->second + ")");
      continue;
    }
    if (path.filename() != pluginFileName(manifest.name)) {
      refuse("the file is named " + path.filename().string() + " but holds plugin '" +
             manifest.name + "', which must be in " + pluginFileName(manifest.name));
      continue;
    }
    if (auto why = buildMismatch(manifest, where)) {
      refuse(*why);
      continue;
    }
    if (auto pin = pins.find(manifest.name); pin != pins.end()) {  // hashed only when pinned
      std::string hash = "sha256:" + toHex(crypto::sha256(bytes).data(), 32);
      if (pin->second != hash) {
        refuse("plugin '" + manifest.name + "' is pinned to " + pin->second +
               " (plugins.pins), but the library has " + hash);
        continue;
      }
    }

    ModuleInfo module;
    module.name = manifest.name;
    module.version = manifest.version;
    module.description = manifest.description;
    module.path = where;
    module.declaredSubmitPaths = manifest.submitPaths;
    module.declaredQueryPaths = manifest.queryPaths;
    module.declaredRoutes = manifest.routes;
    module.declaredListeners = manifest.listeners;
    module.enabled = enabled.count(module.name) > 0;
    if (!module.enabled) {  // known from its descriptor alone; none of its code runs
      found.push_back(std::move(module));
      continue;
    }
    // The library lives as long as the module or anything it registered.
    try {
      auto library =
          loadVerified(bytes,
                       environment.dataDir.empty() ? std::filesystem::temp_directory_path()
                                                   : std::filesystem::path(environment.dataDir),
                       path.filename().string());
      module.library = library;
      if (!library->has(kRegisterSymbol)) {
        refuse("plugin '" + module.name + "' exports no " + kRegisterSymbol);
        continue;
      }
      auto& registerPlugin = library->get<void(Registry&)>(kRegisterSymbol);
      ModuleRegistry registry(module, environment);
      registerPlugin(registry);
    } catch (...) {
      // Read while the library is still loaded: the exception may be of its types.
      refuse("plugin '" + module.name + "' " + module.version +
             " failed to load or register: " + describeException());
      continue;
    }
    if (auto why = registrationMismatch(module)) {
      refuse("plugin '" + module.name + "' " + *why);
      continue;
    }
    found.push_back(std::move(module));
  }
  return found;
}

}  // namespace signet
