// Fuzz target: any bytes as a webhook subscription's filtersJson (plugins/webhooks/filters.hpp).
// Parsing refuses what the language cannot express with signet::Error; anything else escaping,
// a crash or a sanitizer report, is a finding. A filter that parses must mean what it lists:
// every listed type and status passes, a type or status it does not list does not (unless that
// key is absent, which passes all), and the empty filter passes everything.
#include "../../plugins/webhooks/filters.hpp"
#include "fuzz_input.hpp"

namespace {
void check(bool holds) {
  if (!holds) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::refusesWithErrorOnly([&] {
    webhooks::Filter f = webhooks::parseFilter(text, "filtersJson");
    const std::string someStatus = "ACTIVITY_STATUS_COMPLETED";
    const std::string unlistedType = "ACTIVITY_TYPE_NOT_A_TYPE_ANYONE_LISTS\x01";
    for (const auto& type : f.activityTypes)
      for (const auto& status :
           f.statuses.empty() ? std::vector<std::string>{someStatus} : f.statuses)
        check(webhooks::matches(f, type, status));
    check(webhooks::matches(f, unlistedType, f.statuses.empty() ? someStatus : f.statuses[0]) ==
          f.activityTypes.empty());
    check(webhooks::matches(f, f.activityTypes.empty() ? unlistedType : f.activityTypes[0],
                            "ACTIVITY_STATUS_NOT_ONE") == f.statuses.empty());
  });
  return 0;
}
