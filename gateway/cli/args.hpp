// A small command-line parser: --name value and --flag options, each command declaring what
// it accepts so that a typo is an error naming the option rather than silently ignored.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace signet::cli {

class Args {
 public:
  // `valued` options take a value, `flags` do not; anything else is an error. `words` names
  // the words that come first, before any option (`signet rollout set TYPE STATE ...`); each
  // must be there.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags, const std::vector<std::string>& words = {});
  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  // The i-th leading word.
  const std::string& word(size_t i) const { return words_.at(i); }
  // A comma-separated option's items (--orgs a,b), empty items left out; empty when absent.
  std::vector<std::string> list(const std::string& name) const;

 private:
  std::vector<std::string> words_;
  std::map<std::string, std::string> values_;
};

// Thrown for a usage error; main prints it with the command's help and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace signet::cli
