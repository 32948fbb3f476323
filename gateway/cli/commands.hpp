// The signet commands. Each returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace signet::cli {

struct Command {
  const char* name;  // "org create"
  const char* summary;
  const char* usage;
  int (*run)(const std::vector<std::string>& args);
};

int initCommand(const std::vector<std::string>& args);
int orgCreateCommand(const std::vector<std::string>& args);
int serveCommand(const std::vector<std::string>& args);
int pluginsListCommand(const std::vector<std::string>& args);
int pluginsEnableCommand(const std::vector<std::string>& args);   // NAME first
int pluginsDisableCommand(const std::vector<std::string>& args);  // NAME first
int keysShowCommand(const std::vector<std::string>& args);
int keysRotateMasterCommand(const std::vector<std::string>& args);
int keysWrapMasterCommand(const std::vector<std::string>& args);
int backupCommand(const std::vector<std::string>& args);
int restoreCommand(const std::vector<std::string>& args);
int rolloutSetCommand(const std::vector<std::string>& args);  // TYPE STATE first
int rolloutListCommand(const std::vector<std::string>& args);
int authProxyEnableCommand(const std::vector<std::string>& args);
int authProxyConfigureCommand(const std::vector<std::string>& args);
int authProxyShowCommand(const std::vector<std::string>& args);
int authProxyDisableCommand(const std::vector<std::string>& args);
int authProxyKeygenCommand(const std::vector<std::string>& args);
int authProxyServeCommand(const std::vector<std::string>& args);
int logCheckpointCommand(const std::vector<std::string>& args);
int logKeyCommand(const std::vector<std::string>& args);
int logProveCommand(const std::vector<std::string>& args);  // ACTIVITY_ID first
int logVerifyCommand(const std::vector<std::string>& args);

const std::vector<Command>& commands();

// `signet <plugin> <command> --data-dir DIR ...` when the data directory's config enables a
// plugin that registered that command (CommandSpec): its exit code; nullopt when none did.
std::optional<int> runPluginCommand(const std::vector<std::string>& args);

}  // namespace signet::cli
