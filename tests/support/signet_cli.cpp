#include "support/signet_cli.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "signet/json.hpp"

#ifndef SIGNET_BINARY
#error "SIGNET_BINARY must name the signet executable"
#endif

namespace signet::test {

CliRun runSignet(const std::vector<std::string>& args) {
  Poco::Pipe outPipe, errPipe;
  auto handle = Poco::Process::launch(SIGNET_BINARY, args, nullptr, &outPipe, &errPipe);
  Poco::PipeInputStream out(outPipe), err(errPipe);
  // Small outputs: reading one pipe to its end before the other cannot fill the second.
  std::string o((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  std::string e((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  return {handle.wait(), o, e};
}

std::string readTextFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

CliOrganization createOrganizationWithCli(const std::string& dataDir, const std::string& name,
                                          const std::string& userName) {
  auto made =
      runSignet({"org", "create", "--data-dir", dataDir, "--name", name, "--user-name", userName});
  if (made.exitCode != 0)
    throw std::runtime_error("signet org create exited with " + std::to_string(made.exitCode) +
                             ": " + made.err);
  CliOrganization org;
  org.organizationId =
      json::parseObject(made.out, "org create")->getValue<std::string>("organizationId");
  const std::string keyFile = dataDir + "/" + org.organizationId + ".api-key.json";
  org.apiPrivateKey =
      json::parseObject(readTextFile(keyFile), keyFile)->getValue<std::string>("apiPrivateKey");
  return org;
}

void freePluginListenerPorts(const std::string& dataDir) {
  std::filesystem::path file = std::filesystem::path(dataDir) / "signet.json";
  std::ifstream in(file);
  if (!in) return;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto config = json::parseObject(text, file.string());
  auto plugins = config->getObject("plugins");
  if (!plugins) return;
  auto enabled = json::optionalStringArray(plugins, "enabled", "plugins");
  if (std::find(enabled.begin(), enabled.end(), "auth-proxy") == enabled.end()) return;
  auto settings = plugins->getObject("settings");
  if (!settings) settings = json::object();
  auto proxy = settings->getObject("auth-proxy");
  if (!proxy) proxy = json::object();
  if (proxy->has("listen")) return;
  proxy->set("listen", "127.0.0.1:0");
  settings->set("auth-proxy", proxy);
  plugins->set("settings", settings);
  std::ofstream(file) << json::stringify(config);
}

ServeProcess::ServeProcess(const std::string& dataDir, const std::vector<std::string>& extraArgs) {
  freePluginListenerPorts(dataDir);
  std::vector<std::string> args{"serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  // Its request log would bury the test's own output: warnings and errors only.
  Poco::Process::Env env{{"SIGNET_LOG_LEVEL", "warning"}};
  handle_ = std::make_unique<Poco::ProcessHandle>(
      Poco::Process::launch(SIGNET_BINARY, args, {}, nullptr, &out_, nullptr, env));
  line_ = nextLine();  // "signet listening on http://127.0.0.1:PORT" (https:// with TLS)
}

ServeProcess::~ServeProcess() {
  if (running_) kill();
}

std::string ServeProcess::nextLine() {
  std::string line;
  for (char c; out_.readBytes(&c, 1) == 1 && c != '\n';) line += c;
  return line;
}

std::string ServeProcess::baseUrl() const {
  auto at = line_.find("http");
  return at == std::string::npos ? "" : line_.substr(at);
}

int ServeProcess::stop() {
  Poco::Process::requestTermination(handle_->id());
  running_ = false;
  return handle_->wait();
}

void ServeProcess::hangUp() {
  ::kill(static_cast<pid_t>(handle_->id()), SIGHUP);
}

void ServeProcess::kill() {
  Poco::Process::kill(*handle_);
  running_ = false;
  handle_->wait();
}

}  // namespace signet::test
