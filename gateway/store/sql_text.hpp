// SQL text the core builds for lists of parameters.
#pragma once

#include <string>

namespace signet {

// "?, ?, ?": `n` placeholders for an IN list or a row of values.
inline std::string placeholders(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s;
}

}  // namespace signet
