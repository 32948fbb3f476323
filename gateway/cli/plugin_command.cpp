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
  if (argv.size() < 2) return std::nullopt;
  // Which plugins exist and what they offer is known only once the data directory's config is
  // read: find --data-dir first.
  std::optional<std::string> dataDir, configFile;
  for (size_t i = 2; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--data-dir") dataDir = argv[i + 1];
    if (argv[i] == "--config") configFile = argv[i + 1];
  }
  if (!dataDir) return std::nullopt;
  Gateway gateway(Config::load(*dataDir, configFile.value_or("")));
  for (const auto& m : gateway.catalog().modules()) {
    if (!m->enabled || m->name != argv[0]) continue;
    for (const auto& c : m->commands) {
      if (c.name != argv[1]) continue;
      std::set<std::string> valued(c.options.begin(), c.options.end());
      valued.insert("data-dir");
      valued.insert("config");
      std::vector<std::string> rest(argv.begin() + 2, argv.end());
      try {
        Args args(rest, valued, {});
        Context ctx(gateway, args);
        return c.run(ctx);
      } catch (const UsageError& e) {
        std::cerr << "signet " << argv[0] << " " << argv[1] << ": " << e.what()
                  << "\nusage: signet " << argv[0] << " " << argv[1] << " --data-dir DIR "
                  << c.usage << "\n";
        return 2;
      } catch (const Error& e) {  // copied before the plugin's library can go
        std::cerr << "signet " << argv[0] << " " << argv[1] << ": " << e.what() << "\n";
        return 1;
      }
    }
  }
  return std::nullopt;
}

}  // namespace signet::cli
