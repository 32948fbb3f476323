#include "instances.hpp"

#include <unistd.h>

#include <map>

#include "signet/version.hpp"

namespace deployment {

using namespace signet;

namespace {
const std::string kPath = "plugins.settings.deployment";

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}
}  // namespace

Settings parseSettings(const json::Object& o) {
  Settings s;
  s.appId = json::optionalString(o, "appId", kPath).value_or(s.appId);
  if (s.appId.empty() || s.appId.size() > 128)
    throw invalidArgument("invalid field " + kPath + ".appId: 1 to 128 characters");
  s.heartbeatSeconds =
      json::optionalIntInRange(o, "heartbeatSeconds", kPath, s.heartbeatSeconds, 1, 300);
  s.forgetAfterHours =
      json::optionalIntInRange(o, "forgetAfterHours", kPath, s.forgetAfterHours, 1, 24 * 30);
  return s;
}

std::string deploymentId(const std::string& version) {
  return "signet-" + version;
}

void Instances::run(WorkerContext& w) {
  std::string id = crypto::uuidV4();
  const int64_t interval = int64_t{settings_.heartbeatSeconds} * 1000;
  w.transaction([&](RequestContext& ctx) {
    ctx.db().exec(
        "INSERT INTO deployment_instances (id, host, pid, version, started_at_ms, "
        "heartbeat_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
        {id, hostName(), int64_t{getpid()}, std::string(SIGNET_SDK_VERSION), w.nowMs(), w.nowMs()});
  });
  while (w.waitFor(interval)) {
    try {
      w.transaction([&](RequestContext& ctx) {
        ctx.db().exec("UPDATE deployment_instances SET heartbeat_at_ms = ? WHERE id = ?",
                      {ctx.nowMs(), id});
        // Gateways that vanished without stopping (kill -9, a lost machine) are forgotten
        // after a while, by whichever gateway notices first.
        ctx.db().exec("DELETE FROM deployment_instances WHERE heartbeat_at_ms < ?",
                      {ctx.nowMs() - int64_t{settings_.forgetAfterHours} * 3'600'000});
      });
    } catch (const Error&) {
      // The store is away (a restart of PostgreSQL): the next beat tries again, and until then
      // this gateway reads as not ready, which is what it is.
    }
  }
  w.transaction([&](RequestContext& ctx) {
    ctx.db().exec("DELETE FROM deployment_instances WHERE id = ?", {id});
  });
}

json::Object Instances::appStatus(RequestContext& ctx, const json::Object& body) {
  std::string appId = json::requireString(body, "appId", "");
  if (appId != settings_.appId)
    throw notFound("app " + appId + " (appId) not found: this deployment is \"" + settings_.appId +
                   "\" (plugins.settings.deployment.appId)");
  struct Deployment {
    int64_t ready = 0, desired = 0, lastUpdatedMs = 0;
  };
  std::map<std::string, Deployment> byVersion;
  const int64_t readySince = ctx.nowMs() - 3 * int64_t{settings_.heartbeatSeconds} * 1000;
  for (const auto& r :
       ctx.db().query("SELECT version, heartbeat_at_ms FROM deployment_instances", {})) {
    auto& d = byVersion[r.str("version")];
    d.desired += 1;
    d.ready += r.i64("heartbeat_at_ms") >= readySince ? 1 : 0;
    d.lastUpdatedMs = std::max(d.lastUpdatedMs, r.i64("heartbeat_at_ms"));
  }
  json::Array deployments = json::array();
  for (const auto& [version, d] : byVersion) {
    json::Object o = json::object();
    o->set("deploymentId", deploymentId(version));
    o->set("readyReplicas", d.ready);
    o->set("desiredReplicas", d.desired);
    o->set("lastUpdatedTime", json::timestamp(d.lastUpdatedMs));
    deployments->add(o);
  }
  json::Object status = json::object();
  status->set("appId", settings_.appId);
  status->set("targetedDeploymentId", deploymentId(SIGNET_SDK_VERSION));
  status->set("deployments", deployments);
  json::Object r = json::object();
  r->set("appStatus", status);
  return r;
}

// One row per running gateway; nothing in it is secret.
std::vector<Migration> migrations() {
  return {{1,
           "the deployment's gateways and their heartbeats",
           {"CREATE TABLE deployment_instances (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid "
            "BIGINT NOT NULL, version TEXT NOT NULL, started_at_ms BIGINT NOT NULL, "
            "heartbeat_at_ms BIGINT NOT NULL)"}}};
}

}  // namespace deployment
