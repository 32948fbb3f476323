// The signet binary as an operator runs it: its exit code and what it printed.
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <memory>
#include <string>
#include <vector>

namespace signet::test {

struct CliRun {
  int exitCode;
  std::string out;
  std::string err;
};

CliRun runSignet(const std::vector<std::string>& args);

// A file's whole text: a credentials file, a key, a config.
std::string readTextFile(const std::string& path);

// An organization made as an operator makes one, `signet org create --data-dir DIR`, with the
// API key that command wrote beside the store (DIR/ORG.api-key.json). Throws with the command's
// standard error when it fails.
struct CliOrganization {
  std::string organizationId;
  std::string apiPrivateKey;  // hex, what ApiKeyStamper::fromHex takes
};
CliOrganization createOrganizationWithCli(const std::string& dataDir,
                                          const std::string& name = "Acme",
                                          const std::string& userName = "alice");

// Gives the plugin listeners a data directory's config enables a free loopback port each (the
// auth proxy's default, 8090, would clash between tests that run at once).
void freePluginListenerPorts(const std::string& dataDir);

// `signet serve --data-dir DIR [extraArgs]` on a free loopback port, as its own process, its
// plugins' listeners on free ports too.
class ServeProcess {
 public:
  explicit ServeProcess(const std::string& dataDir, const std::vector<std::string>& extraArgs = {});
  ~ServeProcess();
  std::string baseUrl() const;
  int stop();     // SIGTERM, then its exit code
  void kill();    // SIGKILL: no chance to finish anything
  void hangUp();  // SIGHUP: reload the TLS certificate
  // Any further lines it printed after the listening line (a plugin's listener).
  std::string nextLine();

 private:
  Poco::Pipe out_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  std::string line_;
  bool running_ = true;
};

}  // namespace signet::test
