// A plugin built against SDK headers that differ from the gateway's by one struct member
// (tests/support/CMakeLists.txt makes the copy and derives its digest as the SDK's build does).
// Nothing in it names a version: SIGNET_PLUGIN records the digest of the headers it saw, and the
// host must refuse the plugin from the file, naming the digests, before loading it. (Its
// registration would throw if it ever ran.)
#include <stdexcept>

#include "signet/plugin.hpp"

namespace {
void registerChangedHeaders(signet::Registry&) {
  static_assert(sizeof(signet::VerifiedContact::addedByTheTest) > 0,
                "built against the changed copy of the headers");
  throw std::logic_error("must never be called");
}
}  // namespace

SIGNET_PLUGIN(registerChangedHeaders,
              {.name = "changedheaders",
               .version = "1.0.0",
               .description = "built against headers with one more struct member"})
