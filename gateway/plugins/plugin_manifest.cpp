#include "plugin_manifest.hpp"

#include <map>
#include <stdexcept>

#include "signet/plugin_descriptor.hpp"

namespace signet {

namespace {

// key=value lines after the magic line, up to the first NUL (the section is zero-padded).
std::vector<std::pair<std::string, std::string>> lines(std::string_view text) {
  text = text.substr(0, text.find('\0'));
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      throw std::runtime_error("the plugin descriptor's last line is not terminated");
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (out.empty() && line == kPluginDescriptorMagic) {
      out.emplace_back("", "");  // marks that the magic line was seen
      continue;
    }
    if (out.empty())
      throw std::runtime_error("the plugin descriptor does not start with '" +
                               std::string(kPluginDescriptorMagic) + "'");
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      throw std::runtime_error("the plugin descriptor line '" + std::string(line) +
                               "' is not key=value");
    out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  if (out.empty()) throw std::runtime_error("the plugin descriptor is empty");
  out.erase(out.begin());
  return out;
}

// This gateway's own build signature, as the same header writes it for plugins: its keys are
// the ones a plugin's descriptor must carry, in order.
const std::vector<std::pair<std::string, std::string>>& gatewayBuild() {
  static const auto own = [] {
    const PluginDescriptorText text = describeBuild();
    return lines(std::string(kPluginDescriptorMagic) + "\n" + text.data());
  }();
  return own;
}

}  // namespace

PluginManifest parsePluginManifest(std::string_view section) {
  if (section.size() != kPluginDescriptorBytes)
    throw std::runtime_error("the plugin descriptor section has " + std::to_string(section.size()) +
                             " bytes, not " + std::to_string(kPluginDescriptorBytes));
  PluginManifest m;
  std::map<std::string, std::string> build;
  for (auto& [key, value] : lines(section)) {
    if (key == "name")
      m.name = value;
    else if (key == "version")
      m.version = value;
    else if (key == "description")
      m.description = value;
    else if (key == "submit")
      m.submitPaths.push_back(value);
    else if (key == "query")
      m.queryPaths.push_back(value);
    else if (key == "route")
      m.routes.push_back(value);
    else if (key == "listener")
      m.listeners.push_back(value);
    else
      build[key] = value;
  }
  if (m.name.empty()) throw std::runtime_error("the plugin descriptor has no name");
  for (const auto& entry : gatewayBuild()) {
    const std::string& key = entry.first;
    auto it = build.find(key);
    if (it == build.end())
      throw std::runtime_error("the plugin descriptor's build signature has no '" + key + "'");
    m.build.emplace_back(key, it->second);
  }
  return m;
}

std::optional<std::string> buildMismatch(const PluginManifest& manifest, const std::string& path) {
  // manifest.build holds the gateway's keys in the gateway's order (parsePluginManifest).
  const auto& own = gatewayBuild();
  for (size_t i = 0; i < own.size(); ++i) {
    const auto& [key, value] = manifest.build[i];
    if (value == own[i].second) continue;
    return "plugin '" + manifest.name + "' " + manifest.version + " (" + path +
           ") was built with " + key + " " + value + ", but this gateway with " + key + " " +
           own[i].second + "; rebuild it against this gateway's SDK";
  }
  return std::nullopt;
}

}  // namespace signet
