#include "signet/memory.hpp"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>

namespace signet {

namespace {
// Whether `library`, if loaded, is where the process's malloc comes from: the malloc every
// caller resolves to is that library's own. Linked is not enough (a library preloaded before it
// would have taken malloc instead).
bool servesMalloc(const char* library) {
  void* handle = ::dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return false;
  bool serves = ::dlsym(handle, "malloc") == ::dlsym(RTLD_DEFAULT, "malloc");
  ::dlclose(handle);
  return serves;
}
}  // namespace

AllocatorInForce allocatorInForce() {
  // AddressSanitizer's, in the sanitizer build: its runtime replaces malloc to watch it.
  if (::dlsym(RTLD_DEFAULT, "__asan_init")) return {"asan", ""};
  // Looked up rather than called, so that the core library needs no mimalloc of its own: the
  // binary brings it.
  if (servesMalloc("libmimalloc.so.2")) {
    using Version = int (*)();
    auto version = reinterpret_cast<Version>(::dlsym(RTLD_DEFAULT, "mi_version"));
    int v = version ? version() : 0;  // 209 for 2.0.9
    return {"mimalloc", std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
                            std::to_string(v % 10)};
  }
  if (servesMalloc("libc.so.6")) return {"libc", ::gnu_get_libc_version()};
  return {"other", ""};  // preloaded: jemalloc, say
}

void releaseFreedMemory() {
  // Found once: which allocator serves malloc does not change while the process runs. ASan's or
  // a preloaded one is left to manage itself.
  static const std::string allocator = allocatorInForce().name;
  using Collect = void (*)(bool);
  static const auto collect = allocator == "mimalloc"
                                  ? reinterpret_cast<Collect>(::dlsym(RTLD_DEFAULT, "mi_collect"))
                                  : nullptr;
  if (collect)
    collect(true);
  else if (allocator == "libc")
    ::malloc_trim(0);
}

}  // namespace signet
