// Fuzz target: the activity envelope, the first thing the pipeline reads of a stamped body
// (type, organizationId, timestampMs, parameters, generateAppProofs, in any key order), and the
// NUL check the router applies to every API body before it.
#include "activity/pipeline.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  fuzz::refusesWithErrorOnly([&] {
    signet::json::fieldHoldingNul(body);
    signet::parseEnvelope(body);
  });
  return 0;
}
