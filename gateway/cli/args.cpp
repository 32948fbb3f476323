#include "cli/args.hpp"

#include <stdexcept>

namespace signet::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags, const std::vector<std::string>& words) {
  for (const auto& word : words) {
    size_t i = words_.size();
    if (i >= argv.size() || argv[i].rfind("--", 0) == 0)
      throw UsageError("missing " + word + " before the options");
    words_.push_back(argv[i]);
  }
  for (size_t i = words_.size(); i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2), value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (valued.count(name)) {
      if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
      value = argv[++i];
    }
    if (!valued.count(name) && !flags.count(name)) throw UsageError("unknown option --" + name);
    values_[name] = value;
  }
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
