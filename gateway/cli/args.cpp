#include "cli/args.hpp"

#include <stdexcept>

namespace signet::cli {

namespace {
bool isOption(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-';
}
bool takesNoValue(const std::string& arg) {
  return arg == "--help" || arg == "-h" || arg == "--version" || arg.find('=') != std::string::npos;
}
}  // namespace

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags, const std::vector<std::string>& words) {
  bool optionsEnded = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (optionsEnded || !isOption(arg)) {
      if (words_.size() == words.size()) throw UsageError("unexpected argument '" + arg + "'");
      words_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) throw UsageError("unknown option " + arg);
    std::string name = arg.substr(2), value;
    bool inline_ = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      inline_ = true;
    }
    if (!valued.count(name) && !flags.count(name)) throw UsageError("unknown option --" + name);
    if (valued.count(name) && !inline_) {
      if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
      value = argv[++i];
    }
    if (flags.count(name) && inline_)
      throw UsageError("option --" + name + " takes no value, not '" + value + "'");
    values_[name] = value;
  }
  if (words_.size() < words.size()) throw UsageError("missing " + words[words_.size()]);
}

std::vector<size_t> wordPositions(const std::vector<std::string>& argv) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--") {
      for (++i; i < argv.size(); ++i) positions.push_back(i);
      break;
    }
    if (!isOption(argv[i]))
      positions.push_back(i);
    else if (!takesNoValue(argv[i]))
      ++i;  // its value
  }
  return positions;
}

std::optional<std::string> findOption(const std::vector<std::string>& argv,
                                      const std::string& name) {
  std::optional<std::string> value;
  const std::string option = "--" + name;
  for (size_t i = 0; i < argv.size() && argv[i] != "--"; ++i) {
    if (argv[i] == option && i + 1 < argv.size())
      value = argv[i + 1];
    else if (argv[i].rfind(option + "=", 0) == 0)
      value = argv[i].substr(option.size() + 1);
    if (isOption(argv[i]) && !takesNoValue(argv[i])) ++i;
  }
  return value;
}

bool asksForHelp(const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--") return false;
    if (argv[i] == "--help" || argv[i] == "-h") return true;
    if (isOption(argv[i]) && !takesNoValue(argv[i])) ++i;
  }
  return false;
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::list(const std::string& name) const {
  std::vector<std::string> items;
  auto text = get(name);
  if (!text) return items;
  size_t start = 0;
  while (start <= text->size()) {
    size_t comma = text->find(',', start);
    if (comma == std::string::npos) comma = text->size();
    if (comma > start) items.push_back(text->substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string Args::require(const std::string& name) const {
  auto v = get(name);
  if (!v || v->empty()) throw UsageError("missing required option --" + name);
  return *v;
}

}  // namespace signet::cli
