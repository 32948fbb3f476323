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
  // `valued` options take a value, `flags` do not; anything else is an error.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags);
  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;
  bool has(const std::string& name) const { return values_.count(name) > 0; }

 private:
  std::map<std::string, std::string> values_;
};

// Thrown for a usage error; main prints it with the command's help and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace signet::cli
