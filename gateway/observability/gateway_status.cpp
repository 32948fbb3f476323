#include "observability/gateway_status.hpp"

#include "activity/rollout.hpp"
#include "plugins/catalog.hpp"

namespace signet {

json::Object gatewayStatus(const Catalog& catalog, RequestContext& ctx, const json::Object&) {
  json::Object out = json::object();
  out->set("version", "0.1.0");
  out->set("nowMs", std::to_string(ctx.nowMs()));
  // The query ran in a read transaction, so the store answered; the count shows it did.
  out->set("storeUp", true);
  out->set("organizationCount",
           std::to_string(ctx.db().queryOne("SELECT COUNT(*) AS n FROM organizations")->i64("n")));

  json::Array modules = json::array();
  std::vector<const ActivitySpec*> specs;
  for (const auto& m : catalog.modules()) {
    if (!m->enabled) continue;
    json::Object o = json::object();
    o->set("name", m->name);
    o->set("version", m->version);
    o->set("description", m->description);
    o->set("builtin", m->builtin);
    o->set("activityCount", static_cast<int>(m->activities.size()));
    o->set("queryCount", static_cast<int>(m->queries.size()));
    modules->add(o);
    for (const auto& a : m->activities) specs.push_back(&a);
  }
  out->set("plugins", modules);

  json::Array rollouts = json::array();
  for (const auto& v : rolloutsFor(ctx.db(), specs, ctx.organizationId())) {
    json::Object o = json::object();
    o->set("activityType", v.type);
    o->set("state", rolloutStateName(v.assignment.state));
    o->set("admitsThisOrganization", v.admitted);
    if (v.assignment.state == RolloutState::kCanary) o->set("percent", v.assignment.percent);
    if (!v.assignment.replacement.empty()) o->set("replacement", v.assignment.replacement);
    if (v.assignment.sunsetMs) o->set("sunsetMs", std::to_string(v.assignment.sunsetMs));
    o->set("setByOperator", v.assignment.byOperator);
    rollouts->add(o);
  }
  out->set("rollouts", rollouts);
  return out;
}

}  // namespace signet
