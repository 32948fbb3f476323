// This deployment's gateways, as the store knows them: each `signet serve` registers itself when
// its workers start, refreshes its heartbeat every `heartbeatSeconds`, and removes itself when
// it stops. Every gateway on one store (one SQLite file, or all the gateways sharing a
// PostgreSQL database) sees every other, so get_app_status reports the whole deployment.
#pragma once

#include <string>

#include "signet/plugin.hpp"

namespace deployment {

// plugins.settings.deployment, every field optional:
//   appId             what get_app_status answers to (default "signet")
//   heartbeatSeconds  how often a gateway says it is alive (default 5); one that has not for
//                     three of these is not ready
//   forgetAfterHours  how long a gateway that vanished without stopping stays counted among
//                     the desired replicas (default 1); then its row is removed
struct Settings {
  std::string appId = "signet";
  int heartbeatSeconds = 5;
  int forgetAfterHours = 1;
};
Settings parseSettings(const signet::json::Object& o);

// The deployment id of gateways running this build: signet-<version>. Gateways of several
// versions (a rolling upgrade) are several deployments of one app.
std::string deploymentId(const std::string& version);

class Instances {
 public:
  explicit Instances(Settings settings) : settings_(std::move(settings)) {}
  // The worker: register, heartbeat until the gateway stops, deregister.
  void run(signet::WorkerContext& w);
  // get_app_status.
  signet::json::Object appStatus(signet::RequestContext& ctx, const signet::json::Object& body);

 private:
  Settings settings_;
};

std::vector<signet::Migration> migrations();

}  // namespace deployment
