// Fuzz target: any bytes as a file in the plugin directory. The host walks its ELF section
// headers for the descriptor and parses the descriptor's text; both may refuse the bytes
// (std::runtime_error, which the host reports as "not a Signet plugin: ..."). Anything else, or
// a crash, hang or sanitizer report, is a bug: a plugin directory is read before any check. An
// input that starts with the descriptor's magic line is also parsed as a descriptor directly
// (zero-padded to the section's size), so the text parser is reached without an ELF wrapper.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "plugins/elf_section.hpp"
#include "plugins/plugin_manifest.hpp"
#include "signet/plugin_descriptor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    if (auto section = signet::elfSection(bytes, signet::kPluginDescriptorSection)) {
      auto manifest = signet::parsePluginManifest(*section);
      signet::buildMismatch(manifest, "fuzz");
    }
  } catch (const std::runtime_error&) {
  }
  if (bytes.substr(0, signet::kPluginDescriptorMagic.size()) == signet::kPluginDescriptorMagic &&
      size <= signet::kPluginDescriptorBytes) {
    std::string section(bytes);
    section.resize(signet::kPluginDescriptorBytes, '\0');
    try {
      signet::parsePluginManifest(section);
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
