#include "store/given_texts.hpp"

#include <atomic>

namespace signet {

namespace {
// The innermost GivenTexts alive on this thread: each holds the one it was made inside.
thread_local GivenTexts* innermost = nullptr;
std::atomic<uint64_t> foundCount{0};
}  // namespace

GivenTexts::GivenTexts(const std::vector<std::pair<std::string, std::string>>& texts)
    : texts_(texts), outer_(innermost) {
  innermost = this;
}

GivenTexts::~GivenTexts() {
  innermost = outer_;
}

const std::string* GivenTexts::find(std::string_view name) {
  for (const GivenTexts* given = innermost; given; given = given->outer_)
    for (const auto& [held, text] : given->texts_)
      if (held == name) {
        foundCount.fetch_add(1, std::memory_order_relaxed);
        return &text;
      }
  return nullptr;
}

uint64_t GivenTexts::found() {
  return foundCount.load(std::memory_order_relaxed);
}

}  // namespace signet
