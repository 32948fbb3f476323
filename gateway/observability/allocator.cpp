#include "observability/allocator.hpp"

#include <dlfcn.h>
#include <gnu/libc-version.h>

#include <cstdlib>

namespace signet {

AllocatorInForce allocatorInForce() {
  // Looked up rather than called, so that the core library needs no mimalloc of its own: the
  // binary brings it. Linked is not enough; what counts is that a block malloc returns is in
  // its heap (a library preloaded before it would have taken malloc instead).
  using InHeap = bool (*)(const void*);
  using Version = int (*)();
  auto inHeap = reinterpret_cast<InHeap>(::dlsym(RTLD_DEFAULT, "mi_is_in_heap_region"));
  auto version = reinterpret_cast<Version>(::dlsym(RTLD_DEFAULT, "mi_version"));
  if (inHeap && version) {
    void* block = std::malloc(16);
    bool ours = inHeap(block);
    std::free(block);
    if (ours) {
      int v = version();  // 209 for 2.0.9
      return {"mimalloc", std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
                              std::to_string(v % 10)};
    }
  }
  // AddressSanitizer's, in the sanitizer build: its runtime replaces malloc to watch it.
  if (::dlsym(RTLD_DEFAULT, "__asan_init")) return {"asan", ""};
  // The C library's, unless a library preloaded before it took malloc (jemalloc, say).
  void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  bool libcs = libc && ::dlsym(libc, "malloc") == ::dlsym(RTLD_DEFAULT, "malloc");
  if (libc) ::dlclose(libc);
  if (libcs) return {"libc", ::gnu_get_libc_version()};
  return {"other", ""};
}

}  // namespace signet
