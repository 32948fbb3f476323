// A test plugin for the hooks the core offers plugins: it records the events it receives,
// provides wallet creation for create_sub_organization (an id and no keys: the contract of
// the hook, not a wallet), and refuses to let an organization holding one of its wallets be
// deleted without deleteWithoutExport, as the signing plugin will for unexported keys.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "signet/plugin.hpp"
#include "signet/wallet_params.hpp"

namespace {
using namespace signet;

std::vector<Migration> migrations() {
  return {{1,
           "recorder tables",
           {"CREATE TABLE recorder_events (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "event TEXT NOT NULL, payload TEXT NOT NULL)",
            "CREATE TABLE recorder_wallets (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
            "name TEXT NOT NULL)"}},
          {2,
           "activity events received",
           {"CREATE TABLE recorder_activity_events (event_id TEXT PRIMARY KEY, activity_id TEXT "
            "NOT NULL, organization_id TEXT NOT NULL, parent_organization_id TEXT NOT NULL, "
            "status TEXT NOT NULL)"}}};
}

void record(ActivityContext& ctx, const std::string& event, const json::Object& payload) {
  ctx.db().exec(
      "INSERT INTO recorder_events (id, organization_id, event, payload) VALUES (?, ?, ?, ?)",
      {ctx.newId(), ctx.organizationId(), event, json::stringify(payload)});
}

json::Object createWallet(ActivityContext& ctx, const std::string& organizationId,
                          const WalletParameters& params) {
  std::string id = ctx.newId();
  ctx.db().exec("INSERT INTO recorder_wallets (id, organization_id, name) VALUES (?, ?, ?)",
                {id, organizationId, params.walletName});
  json::Object wallet = json::object();
  wallet->set("walletId", id);
  wallet->set("addresses", json::array());
  return wallet;
}

void beforeDelete(ActivityContext& ctx, const std::string& organizationId, bool withoutExport) {
  auto wallet = ctx.db().queryOne("SELECT id FROM recorder_wallets WHERE organization_id = ?",
                                  {organizationId});
  if (wallet && !withoutExport)
    throw failedPrecondition("organization " + organizationId + " holds wallet " +
                             wallet->str("id") +
                             " that was never exported; pass deleteWithoutExport to delete anyway");
  ctx.db().exec("DELETE FROM recorder_wallets WHERE organization_id = ?", {organizationId});
}

json::Object listEvents(RequestContext& ctx, const json::Object&) {
  json::Array events = json::array();
  for (const auto& row : ctx.db().query("SELECT event, payload FROM recorder_events WHERE "
                                        "organization_id = ? ORDER BY event",
                                        {ctx.organizationId()})) {
    json::Object e = json::object();
    e->set("event", row.str("event"));
    e->set("payload", json::parseObject(row.str("payload"), "payload"));
    events->add(e);
  }
  json::Object out = json::object();
  out->set("events", events);
  return out;
}

// Records each activity event; refuses those of a user tag named "poison", so that a test can
// watch a failing event wait for its retry while the others go on.
void recordActivityEvent(RequestContext& ctx, const ActivityEvent& e) {
  auto intent = e.activity->getObject("intent");
  auto tag = intent ? intent->getObject("createUserTagIntent") : nullptr;
  if (tag && tag->optValue<std::string>("userTagName", "") == "poison")
    throw internalError("the recorder refuses the poison tag's event");
  ctx.db().exec(
      "INSERT INTO recorder_activity_events (event_id, activity_id, organization_id, "
      "parent_organization_id, status) VALUES (?, ?, ?, ?, ?)",
      {e.eventId, e.activityId, e.organizationId, e.parentOrganizationId, e.status});
}

// Holds its handler slot for `?ms=N` milliseconds (at most 5,000), then answers: what the front
// end's tests need to keep every slot taken for a known while.
HttpReply pause(RequestContext&, const HttpCall& call) {
  int ms = 0;
  if (call.query.rfind("ms=", 0) == 0)
    ms = std::min(5000, std::max(0, std::atoi(call.query.c_str() + 3)));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  HttpReply reply;
  reply.contentType = "text/plain; charset=utf-8";
  reply.body = "paused " + std::to_string(ms) + " ms\n";
  return reply;
}

void registerRecorder(Registry& r) {
  r.route({"GET", "/pause", RouteAccess::kPublic, pause});
  // plugins.settings.recorder.interestQuery, when given, is the events' interest query: what the
  // tests of a plugin's interest need, a good one and a broken one.
  r.activityEvents({.handler = recordActivityEvent,
                    .interestQuery = r.settings()->optValue<std::string>("interestQuery", "")});
  r.migrations("recorder", migrations());
  r.subscribe(kEventFeatureSet, record);
  r.subscribe(kEventFeatureRemoved, record);
  r.walletCreator(createWallet);
  r.organizationDeletionHook(beforeDelete);
  r.query({"recorder_events", listEvents});
}

}  // namespace

SIGNET_PLUGIN(registerRecorder, {.name = "recorder",
                                 .version = "0.0.1",
                                 .description = "hook test plugin",
                                 .queryPaths = {"recorder_events"},
                                 .routes = {"GET /pause public"}})
