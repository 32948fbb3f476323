// A small command-line parser: --name value and --flag options, each command declaring what
// it accepts so that a typo is an error naming the option rather than silently ignored.
// Options may come anywhere among a command's words, as GNU tools take them: `signet rollout
// set --data-dir D TYPE STATE` and `signet rollout set TYPE STATE --data-dir D` are one command.
// `--` ends the options; what follows it is words, even when it starts with "--".
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
  // `valued` options take a value (`--name value` or `--name=value`), `flags` do not; anything
  // else is an error. `words` names the words the command takes besides its options
  // (`signet rollout set TYPE STATE ...`), in order; each must be there, and no other.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags, const std::vector<std::string>& words = {});
  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  // The i-th word.
  const std::string& word(size_t i) const { return words_.at(i); }
  // A comma-separated option's items (--orgs a,b), empty items left out; empty when absent.
  std::vector<std::string> list(const std::string& name) const;

 private:
  std::vector<std::string> words_;
  std::map<std::string, std::string> values_;
};

// The positions in `argv` of its words, the arguments that are neither an option nor an
// option's value, for finding a command's name before its options are known: every option
// without `=` is taken to have a value (signet's commands and plugins' have no flags), except
// --help, -h and --version.
std::vector<size_t> wordPositions(const std::vector<std::string>& argv);

// The value of option --`name` in argv (`--name value` or `--name=value`) before the command
// that declares its other options is known; the last one given.
std::optional<std::string> findOption(const std::vector<std::string>& argv,
                                      const std::string& name);

// Whether argv asks for help (--help or -h) in place of an option.
bool asksForHelp(const std::vector<std::string>& argv);

// Thrown for a usage error; main prints it with the command's help and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace signet::cli
