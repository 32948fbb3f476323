// A plugin that must never be loaded while disabled: loading it runs a static initializer that
// aborts the whole process, and its registration throws. It sits, disabled, in the folder of
// test plugins that every plugin test starts a gateway with, so a host that ran any code of a
// disabled plugin would take the test run down.
#include <cstdlib>
#include <stdexcept>

#include "signet/plugin.hpp"

namespace {
const int tripped = [] {
  std::abort();
  return 0;
}();

void registerTripwire(signet::Registry&) {
  throw std::logic_error("a disabled plugin's registration ran");
}
}  // namespace

SIGNET_PLUGIN(registerTripwire, {.name = "tripwire",
                                 .version = "0.0.1",
                                 .description = "aborts if it is ever loaded",
                                 .submitPaths = {"tripwire_submit"},
                                 .queryPaths = {"tripwire_query"}})
