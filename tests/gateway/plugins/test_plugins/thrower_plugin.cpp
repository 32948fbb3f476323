// A plugin that throws a plain std::runtime_error (not a signet::Error) at the one site its
// settings name, plugins.settings.thrower.throwIn: registration, migration, handler, query,
// facts (its provider for every activity), activityFacts (its activity's own) or event. Everywhere
// else it behaves, so a test can check that the gateway names the plugin, fails only what the
// plugin was part of, and keeps serving. Its handler also answers how often its activity's facts
// ran first (factsRunsSeen), from the request cache they share.
#include <stdexcept>

#include "signet/plugin.hpp"

namespace {
using namespace signet;

std::string site;  // this process loads one thrower per gateway; tests run gateways in turn

void throwIf(const std::string& here) {
  if (site == here) throw std::runtime_error("thrower failed on purpose in " + here);
}

// How many times this activity's facts ran before its handler, as the request cache says.
int& factsRuns(RequestContext& ctx) {
  return ctx.requestCache().get<int>("thrower.factsRuns", [] { return 0; });
}

json::Object ping(ActivityContext& ctx, const json::Object& params) {
  throwIf("handler");
  json::Object out = json::object();
  out->set("pong", json::requireString(params, "text", "parameters"));
  out->set("factsRunsSeen", factsRuns(ctx));
  return out;
}

json::Object count(RequestContext& ctx, const json::Object&) {
  throwIf("query");
  json::Object out = json::object();
  out->set("count", ctx.db().queryOne("SELECT COUNT(*) AS n FROM thrower_events", {})->str("n"));
  return out;
}

json::Object facts(RequestContext&, const std::string& type, const json::Object&) {
  if (type == "ACTIVITY_TYPE_THROWER_PING") throwIf("facts");
  return json::object();
}

json::Object pingFacts(RequestContext& ctx, const json::Object&) {
  throwIf("activityFacts");
  ++factsRuns(ctx);
  return json::object();
}

void onFeature(ActivityContext& ctx, const std::string&, const json::Object&) {
  throwIf("event");
  ctx.db().exec("INSERT INTO thrower_events (id) VALUES (?)", {ctx.newId()});
}

void registerThrower(Registry& r) {
  site = r.settings()->optValue<std::string>("throwIn", "");
  throwIf("registration");
  // A statement that no database accepts, when the migration is to fail.
  std::string table = site == "migration" ? "CREATE TABLE thrower_events (id TEXT PRIMARY KEY,"
                                          : "CREATE TABLE thrower_events (id TEXT PRIMARY KEY)";
  r.migrations("thrower", {{1, "events", {table}}});
  r.activity({.type = "ACTIVITY_TYPE_THROWER_PING",
              .path = "thrower_ping",
              .intentKey = "throwerPingIntent",
              .resultKey = "throwerPingResult",
              .resource = "THROWER",
              .action = "CREATE",
              .handler = ping,
              .facts = pingFacts});
  r.query({"thrower_count", count});
  // The policy keyword its facts fill: "thrower", unless a test asks for another.
  r.factProvider({r.settings()->optValue<std::string>("factKeyword", "thrower")}, facts);
  r.subscribe(kEventFeatureSet, onFeature);
}
}  // namespace

SIGNET_PLUGIN(registerThrower, {.name = "thrower",
                                .version = "0.0.1",
                                .description = "throws where its settings say",
                                .submitPaths = {"thrower_ping"},
                                .queryPaths = {"thrower_count"}})
