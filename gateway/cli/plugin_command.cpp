// signet <plugin> <command> ...: the commands plugins register (CommandSpec), run on the data
// directory's store with the plugin enabled there, beside or without a serving gateway.
#include <iostream>

#include "activity/handler_context.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"

namespace signet::cli {

namespace {

class Context : public CommandContext {
 public:
  Context(Gateway& gateway, const Args& args) : gateway_(gateway), args_(args) {}
  std::optional<std::string> option(const std::string& name) const override {
    return args_.get(name);
  }
  void transaction(const std::function<void(RequestContext&)>& fn) override {
    inTransaction(gateway_, fn);
  }
  void read(const std::function<void(RequestContext&)>& fn) override { onSnapshot(gateway_, fn); }
  void print(const std::string& line) override { std::cout << line << std::endl; }

 private:
  Gateway& gateway_;
  const Args& args_;
};

}  // namespace

std::optional<int> runPluginCommand(const std::vector<std::string>& argv) {
  // The plugin's and the command's names are the first two words, wherever the options are.
  auto words = wordPositions(argv);
  if (words.size() < 2) return std::nullopt;
  const std::string &plugin = argv[words[0]], &command = argv[words[1]];
  std::vector<std::string> rest;
  for (size_t i = 0; i < argv.size(); ++i)
    if (i != words[0] && i != words[1]) rest.push_back(argv[i]);
  // Which plugins exist and what they offer is known only once the data directory's config is
  // read: find --data-dir first.
  std::optional<std::string> dataDir = findOption(rest, "data-dir");
  std::optional<std::string> configFile = findOption(rest, "config");
  if (!dataDir) return std::nullopt;
  Gateway gateway(Config::load(*dataDir, configFile.value_or("")));
  for (const auto& m : gateway.catalog().modules()) {
    if (!m->enabled || m->name != plugin) continue;
    for (const auto& c : m->commands) {
      if (c.name != command) continue;
      std::set<std::string> valued(c.options.begin(), c.options.end());
      valued.insert("data-dir");
      valued.insert("config");
      try {
        Args args(rest, valued, {});
        Context ctx(gateway, args);
        return c.run(ctx);
      } catch (const UsageError& e) {
        std::cerr << "signet " << plugin << " " << command << ": " << e.what() << "\nusage: signet "
                  << plugin << " " << command << " --data-dir DIR " << c.usage << "\n";
        return 2;
      } catch (const Error& e) {  // copied before the plugin's library can go
        std::cerr << "signet " << plugin << " " << command << ": " << e.what() << "\n";
        return 1;
      }
    }
  }
  return std::nullopt;
}

}  // namespace signet::cli
