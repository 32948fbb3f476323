// What the fuzz targets share: splitting one input into a text part and the rest at its first
// NUL byte, and the rule every target checks: a parser of untrusted input refuses it with
// signet::Error (which reaches the client as a clear error), and anything else escaping it,
// a crash, a hang or a sanitizer report, is a finding.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "signet/error.hpp"

namespace fuzz {

inline std::pair<std::string, std::string> splitAtNul(const uint8_t* data, size_t size) {
  size_t nul = 0;
  while (nul < size && data[nul] != 0) ++nul;
  std::string head(reinterpret_cast<const char*>(data), nul);
  std::string rest =
      nul < size ? std::string(reinterpret_cast<const char*>(data) + nul + 1, size - nul - 1)
                 : std::string();
  return {head, rest};
}

template <class F>
void refusesWithErrorOnly(F&& f) {
  try {
    f();
  } catch (const signet::Error&) {
    // a refusal, as intended
  } catch (...) {
    __builtin_trap();
  }
}

}  // namespace fuzz
