// A plugin whose descriptor says it was built against another Poco: the host must refuse it
// from the file alone, naming the field and both values, before loading it. (Its registration
// would throw if it ever ran.) It writes its descriptor by hand, as SIGNET_PLUGIN would with
// another Poco's headers.
#include <stdexcept>

#include "signet/plugin.hpp"

namespace {
constexpr signet::BuildSignature otherPoco() {
  signet::BuildSignature b;
  b.poco = 0x010C04;  // 1.12.4
  return b;
}
}  // namespace

extern "C" [[gnu::visibility("default")]] void signet_plugin_register(signet::Registry&) {
  throw std::logic_error("must never be called");
}
extern "C" [[gnu::used, gnu::visibility("default"),
             gnu::section("signet_descriptor")]] constinit const signet::PluginDescriptorText
    signet_plugin_descriptor = signet::describePlugin(
        {.name = "badbuild", .version = "9.9.9", .description = "built against another Poco"},
        otherPoco());
