// A plugin built for a plugin ABI this gateway does not speak: the host must refuse it
// before calling into it.
#include "signet/plugin.hpp"

namespace {
void registerNothing(signet::Registry&) {
  throw std::logic_error("must never be called");
}
const signet::PluginDescriptor* descriptor() {
  static const signet::PluginDescriptor d{42, "badabi", "9.9.9",
                                          "built for another ABI", registerNothing};
  return &d;
}
}  // namespace

SIGNET_PLUGIN(descriptor)
