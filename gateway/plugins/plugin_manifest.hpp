// A plugin's descriptor as the host reads it from the file (see signet/plugin_descriptor.hpp):
// its name, version and paths, and the build signature that must equal the gateway's own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace signet {

struct PluginManifest {
  std::string name;
  std::string version;
  std::string description;
  // abi, sdk, compiler, stdlib, poco, boost: the gateway's own keys, in its order.
  std::vector<std::pair<std::string, std::string>> build;
  std::vector<std::string> submitPaths;
  std::vector<std::string> queryPaths;
  std::vector<std::string> routes;     // "GET /jwks public"
  std::vector<std::string> listeners;  // names
};

// Parses the descriptor section's bytes; std::runtime_error names what is wrong.
PluginManifest parsePluginManifest(std::string_view section);

// Why the plugin's build does not match this gateway's, naming the field, both values and the
// library; nullopt when every field matches.
std::optional<std::string> buildMismatch(const PluginManifest& manifest, const std::string& path);

}  // namespace signet
