// Which allocator serves this process's malloc. The signet binary links mimalloc, whose
// malloc takes the C library's place for the whole process, plugins included
// (gateway/CMakeLists.txt). The answer is found at run time, so that a build without it (the
// sanitizer build, whose allocator is ASan's) or a library loaded another way says what it has.
#pragma once

#include <string>

namespace signet {

struct AllocatorInForce {
  std::string name;     // "mimalloc", "libc", "asan", or "other" (one preloaded)
  std::string version;  // "2.0.9"; for libc, the C library's; empty otherwise
};

AllocatorInForce allocatorInForce();

}  // namespace signet
