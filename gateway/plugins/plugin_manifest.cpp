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

const std::vector<std::string>& buildKeys() {
  static const std::vector<std::string> keys = {"abi",    "sdk",  "compiler",
                                                "stdlib", "poco", "boost"};
  return keys;
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
  for (const auto& key : buildKeys()) {
    auto it = build.find(key);
    if (it == build.end())
      throw std::runtime_error("the plugin descriptor's build signature has no '" + key + "'");
    m.build.emplace_back(key, it->second);
  }
  return m;
}

std::optional<std::string> buildMismatch(const PluginManifest& manifest, const std::string& path) {
  static const PluginDescriptorText own = describeBuild();
  std::map<std::string, std::string> gateway;
  for (auto& [key, value] : lines(std::string(kPluginDescriptorMagic) + "\n" + own.data()))
    gateway[key] = value;
  for (const auto& [key, value] : manifest.build) {
    if (gateway[key] == value) continue;
    return "plugin '" + manifest.name + "' " + manifest.version + " (" + path +
           ") was built with " + key + " " + value + ", but this gateway with " + key + " " +
           gateway[key] + "; rebuild it against this gateway's SDK";
  }
  return std::nullopt;
}

}  // namespace signet
