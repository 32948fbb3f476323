// The deployment plugin's registration: what this deployment of gateways reports about itself
// (get_app_status, from the heartbeats each gateway writes), and the boot-proof queries, which
// say plainly that no attested enclave backs a Signet gateway.
#include <memory>

#include "boot_proofs.hpp"
#include "instances.hpp"

namespace {

using namespace signet;
using namespace deployment;

void registerDeployment(Registry& r) {
  auto instances = std::make_shared<Instances>(parseSettings(r.settings()));
  // clang-format off
  r.query({"get_app_status", [instances](RequestContext& ctx, const json::Object& b) {
             return instances->appStatus(ctx, b); }});
  r.query({"get_boot_proof",        getBootProof});
  r.query({"get_latest_boot_proof", getLatestBootProof});
  r.worker({"heartbeat", [instances](WorkerContext& w) { instances->run(w); }});
  // clang-format on
  r.migrations("deployment", migrations());
}

}  // namespace

SIGNET_PLUGIN(registerDeployment,
              {.name = "deployment",
               .version = "0.1.0",
               .description = "the deployment's gateways and their status (get_app_status)",
               .queryPaths = {"get_app_status", "get_boot_proof", "get_latest_boot_proof"}})
