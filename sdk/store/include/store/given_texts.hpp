// Texts a thread hands to the SQL it runs next, by name: SQLite's signet_given(name) returns
// the text given under `name` while a GivenTexts that holds it is alive on the calling thread,
// NULL otherwise. SQLite runs a statement, and its triggers, on the thread that steps it, so a
// write can hand a trigger what it made before (the activity log's leaf, made on the request's
// thread: gateway/log/activity_log.hpp) instead of the trigger making it again on the
// committing thread. PostgreSQL runs its triggers in the server, which has no such function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace signet {

class GivenTexts {
 public:
  // `texts` (name, text) must outlive this.
  explicit GivenTexts(const std::vector<std::pair<std::string, std::string>>& texts);
  // A temporary would be gone before the statement reads it.
  explicit GivenTexts(std::vector<std::pair<std::string, std::string>>&&) = delete;
  ~GivenTexts();
  GivenTexts(const GivenTexts&) = delete;
  GivenTexts& operator=(const GivenTexts&) = delete;

  // The text given under `name` on this thread (the innermost GivenTexts that holds it), or
  // none.
  static const std::string* find(std::string_view name);
  // How many times, in this process, find has found a text: for tests that a write path gives
  // what it should, whose outcome is the same either way by design.
  static uint64_t found();

 private:
  const std::vector<std::pair<std::string, std::string>>& texts_;
  GivenTexts* outer_;
};

}  // namespace signet
