// A plugin's descriptor: plain text in an ELF section of its own ("signet_descriptor"), made at
// compile time, that the gateway reads from the file without loading the library. It names the
// plugin, the paths it serves, and the build it came from (the build signature), so that
//   - a disabled plugin is listed, and its paths answer an error naming it, without any of its
//     code running (not even static initializers: the library is never loaded);
//   - a plugin built against other SDK headers or version, another compiler, C++ standard
//     library, Poco or Boost is refused before any C++ type crosses the boundary, naming the
//     field and both values.
// A plugin declares itself with SIGNET_PLUGIN at the end of its plugin.cpp:
//
//   SIGNET_PLUGIN(registerMemo, {.name = "memo",
//                                .version = "0.1.0",
//                                .description = "organization memos",
//                                .submitPaths = {"signet_create_memo"},
//                                .queryPaths = {"signet_list_memos"}})
//
// The host checks at load that what the registration function registers is exactly what the
// descriptor declares, so the two cannot drift apart silently.
#pragma once

#include <Poco/Version.h>

#include <array>
#include <boost/version.hpp>
#include <cstddef>
#include <initializer_list>
#include <string_view>

#include "signet/version.hpp"

namespace signet {

// The descriptor section's size: fixed, so that the host can check it before reading it.
inline constexpr size_t kPluginDescriptorBytes = 4096;
using PluginDescriptorText = std::array<char, kPluginDescriptorBytes>;
inline constexpr const char* kPluginDescriptorSection = "signet_descriptor";
inline constexpr std::string_view kPluginDescriptorMagic = "signet-plugin-descriptor 1";

// What a plugin says about itself. Every string is one line of printable text.
struct PluginInfo {
  const char* name = "";  // lower-case letters, digits and '-'; the file is
                          // libsignet-plugin-<name>.so
  const char* version = "";
  const char* description = "";
  std::initializer_list<const char*> submitPaths;  // served at /public/v1/submit/<path>
  std::initializer_list<const char*> queryPaths;   // served at /public/v1/query/<path>
  // "GET /jwks public" or "POST /sessions stamped": served at /plugins/<name><path>.
  std::initializer_list<const char*> routes;
  std::initializer_list<const char*> listeners;  // the names of its own listeners
};

// The build a binary came from. Each field must be equal in the plugin and the gateway.
struct BuildSignature {
  // The digest of the SDK's public headers the build saw: any change to a type the plugin API
  // passes (plugin.hpp and what it includes) changes it, with nothing to remember to bump.
  const char* headers = SIGNET_SDK_HEADERS_HASH;
  const char* sdk = SIGNET_SDK_VERSION;
#if defined(__clang__)
  const char* compilerFamily = "clang";
  int compilerMajor = __clang_major__;
#elif defined(__GNUC__)
  const char* compilerFamily = "gcc";
  int compilerMajor = __GNUC__;
#else
  const char* compilerFamily = "unknown";
  int compilerMajor = 0;
#endif
#if defined(_LIBCPP_VERSION)
  const char* stdlib = "libc++";
  int stdlibAbi = _LIBCPP_ABI_VERSION;
#elif defined(__GLIBCXX__)
  const char* stdlib = "libstdc++";
  int stdlibAbi = _GLIBCXX_USE_CXX11_ABI ? 11 : 0;  // the C++11 std::string/list ABI, or the old
#else
  const char* stdlib = "unknown";
  int stdlibAbi = 0;
#endif
  // Major, minor and revision: Poco's and Boost's ABI changes with each release.
  unsigned poco = static_cast<unsigned>(POCO_VERSION) >> 8;
  unsigned boost = BOOST_VERSION;
};

namespace descriptor_detail {

// Builds the descriptor text; any violation is a `throw` in a constant expression, which makes
// a bad SIGNET_PLUGIN a compile error rather than a plugin the gateway refuses later.
class Writer {
 public:
  constexpr void text(std::string_view s) {
    for (char c : s) {
      if (c == '\n' || c == '\r' || c == '\0') throw "a descriptor value holds a line break";
      put(c);
    }
  }
  constexpr void number(unsigned long long v) {
    char digits[24] = {};
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (n) put(digits[--n]);
  }
  constexpr void line(std::string_view key, std::string_view value) {
    text(key);
    put('=');
    text(value);
    put('\n');
  }
  constexpr void put(char c) {
    if (size_ + 1 >= out_.size()) throw "the plugin descriptor is longer than 4096 bytes";
    out_[size_++] = c;
  }
  constexpr PluginDescriptorText done() const { return out_; }

 private:
  PluginDescriptorText out_{};
  size_t size_ = 0;
};

constexpr bool isPluginName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

constexpr void signatureLines(Writer& w, const BuildSignature& b) {
  w.line("headers", b.headers);
  w.line("sdk", b.sdk);
  w.text("compiler=");
  w.text(b.compilerFamily);
  w.put(' ');
  w.number(static_cast<unsigned>(b.compilerMajor));
  w.put('\n');
  w.text("stdlib=");
  w.text(b.stdlib);
  w.text(" abi ");
  w.number(static_cast<unsigned>(b.stdlibAbi));
  w.put('\n');
  w.text("poco=");
  w.number(b.poco >> 16);
  w.put('.');
  w.number((b.poco >> 8) & 0xff);
  w.put('.');
  w.number(b.poco & 0xff);
  w.put('\n');
  w.text("boost=");
  w.number(b.boost / 100000);
  w.put('.');
  w.number(b.boost / 100 % 1000);
  w.put('.');
  w.number(b.boost % 100);
  w.put('\n');
}

}  // namespace descriptor_detail

// The descriptor text: the magic line, then key=value lines (name, version, description, the
// build signature, one submit= or query= line per path).
constexpr PluginDescriptorText describePlugin(const PluginInfo& info,
                                              const BuildSignature& build = {}) {
  descriptor_detail::Writer w;
  if (!descriptor_detail::isPluginName(info.name))
    throw "a plugin name is 1 to 64 lower-case letters, digits or '-'";
  if (std::string_view(info.version).empty()) throw "a plugin needs a version";
  w.text(kPluginDescriptorMagic);
  w.put('\n');
  w.line("name", info.name);
  w.line("version", info.version);
  w.line("description", info.description);
  descriptor_detail::signatureLines(w, build);
  for (const char* p : info.submitPaths) w.line("submit", p);
  for (const char* p : info.queryPaths) w.line("query", p);
  for (const char* r : info.routes) w.line("route", r);
  for (const char* l : info.listeners) w.line("listener", l);
  return w.done();
}

// The same build signature lines, for the gateway's side of the comparison.
constexpr PluginDescriptorText describeBuild(const BuildSignature& build = {}) {
  descriptor_detail::Writer w;
  descriptor_detail::signatureLines(w, build);
  return w.done();
}

class Registry;

}  // namespace signet

// Declares the plugin: its descriptor in the "signet_descriptor" section, and its registration
// function exported as signet_plugin_register, which the gateway calls only for an enabled
// plugin whose descriptor it accepted.
#define SIGNET_PLUGIN(registerFunction, ...)                                                      \
  extern "C" [[gnu::visibility("default")]] void signet_plugin_register(::signet::Registry& r) {  \
    registerFunction(r);                                                                          \
  }                                                                                               \
  extern "C" [[gnu::used, gnu::visibility("default"),                                             \
               gnu::section("signet_descriptor")]] constinit const ::signet::PluginDescriptorText \
      signet_plugin_descriptor = ::signet::describePlugin(::signet::PluginInfo __VA_ARGS__);
