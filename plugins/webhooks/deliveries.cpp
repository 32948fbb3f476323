#include "deliveries.hpp"

#include <optional>

#include "endpoints.hpp"
#include "filters.hpp"

namespace webhooks {

using namespace signet;

namespace {

// The event's body goes once no delivery waits for it.
void forgetPayloadIfDone(Db& db, const std::string& eventId) {
  db.exec(
      "DELETE FROM webhook_payloads WHERE event_id = ? AND NOT EXISTS (SELECT 1 FROM "
      "webhook_deliveries WHERE event_id = ? AND status = 'pending')",
      {eventId, eventId});
}

// Makes room for one more pending delivery at the endpoint: past the limit, the one due soonest
// is dropped. A delivery whose attempt is in flight is not it: its claim moved its next attempt
// to the lease's end. The conditional increment holds the limit with several gateways writing.
void admitOne(RequestContext& ctx, const Settings& s, const std::string& endpointId) {
  if (ctx.db().exec(
          "UPDATE webhook_endpoints SET backlog = backlog + 1 WHERE id = ? AND backlog < ?",
          {endpointId, s.maxBacklogPerEndpoint}) == 1)
    return;
  auto oldest = ctx.db().queryOne(
      "SELECT id, event_id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' "
      "ORDER BY next_attempt_at_ms, created_at_ms LIMIT 1",
      {endpointId});
  if (!oldest) {  // the count ran ahead of the rows: set it right
    ctx.db().exec("UPDATE webhook_endpoints SET backlog = 1 WHERE id = ?", {endpointId});
    return;
  }
  ctx.db().exec(
      "UPDATE webhook_deliveries SET status = 'dropped', last_error = ?, updated_at_ms = ? WHERE "
      "id = ?",
      {"dropped for a newer event: the endpoint's backlog reached " +
           std::to_string(s.maxBacklogPerEndpoint) +
           " (plugins.settings.webhooks.maxBacklogPerEndpoint)",
       ctx.nowMs(), oldest->str("id")});
  ctx.db().exec("UPDATE webhook_endpoints SET dropped = dropped + 1 WHERE id = ?", {endpointId});
  forgetPayloadIfDone(ctx.db(), oldest->str("event_id"));
}

}  // namespace

// The subscriptions enqueueDeliveries reads, through the organization's endpoints (a seek on
// webhook_endpoints_organization, then on webhook_subscriptions_endpoint for each).
const std::string kInterestQuery =
    "SELECT 1 FROM webhook_endpoints e JOIN webhook_subscriptions s ON s.endpoint_id = e.id WHERE "
    "e.organization_id IN (?, ?) AND e.is_active = 1 AND s.is_active = 1 AND s.event_type = '" +
    std::string(kActivityUpdates) + "' LIMIT 1";

void enqueueDeliveries(RequestContext& ctx, const Settings& s, const ActivityEvent& event) {
  bool stored = false;  // the body, written once a subscription matches: most events have none
  auto rows = ctx.db().query(
      "SELECT s.endpoint_id, s.filters_json FROM webhook_subscriptions s JOIN "
      "webhook_endpoints e ON e.id = s.endpoint_id WHERE s.event_type = ? AND s.is_active = 1 "
      "AND e.is_active = 1 AND (e.organization_id = ? OR e.organization_id = ?)",
      {std::string(kActivityUpdates), event.organizationId,
       event.parentOrganizationId.empty() ? event.organizationId : event.parentOrganizationId});
  for (const auto& row : rows) {
    Filter filter;
    try {
      filter = parseFilter(row.str("filters_json"), "filtersJson");
    } catch (const Error&) {
      continue;  // checked when written; a filter that no longer parses matches nothing
    }
    if (!matches(filter, event.activityType, event.status)) continue;
    // At least once: the core may hand an event over again after a crash.
    if (ctx.db().queryOne("SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?",
                          {row.str("endpoint_id"), event.eventId}))
      continue;
    if (!stored) {
      ctx.db().exec(
          "INSERT INTO webhook_payloads (event_id, body, created_at_ms) VALUES (?, ?, ?) ON "
          "CONFLICT (event_id) DO NOTHING",
          {event.eventId, json::stringify(event.activity), ctx.nowMs()});
      stored = true;
    }
    admitOne(ctx, s, row.str("endpoint_id"));
    ctx.db().exec(
        "INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, "
        "status, attempts, next_attempt_at_ms, last_http_status, last_error, created_at_ms, "
        "updated_at_ms) VALUES (?, ?, ?, ?, ?, 'pending', 0, 0, 0, '', ?, ?)",
        {ctx.newId(), row.str("endpoint_id"), event.organizationId, event.eventId,
         std::string(kActivityUpdates), ctx.nowMs(), ctx.nowMs()});
  }
}

void deliveryEnded(Db& db, const std::string& endpointId, const std::string& eventId) {
  db.exec("UPDATE webhook_endpoints SET backlog = backlog - 1 WHERE id = ? AND backlog > 0",
          {endpointId});
  forgetPayloadIfDone(db, eventId);
}

// Reads the endpoint's pending deliveries (an index range) and each body by its key, not every
// body in the store.
void forgetPayloadsOnlyFor(Db& db, const std::string& endpointId) {
  db.exec(
      "DELETE FROM webhook_payloads WHERE event_id IN (SELECT event_id FROM webhook_deliveries "
      "WHERE endpoint_id = ? AND status = 'pending') AND NOT EXISTS (SELECT 1 FROM "
      "webhook_deliveries d WHERE d.event_id = webhook_payloads.event_id AND d.status = "
      "'pending' AND d.endpoint_id <> ?)",
      {endpointId, endpointId});
}

json::Object listDeliveries(RequestContext& ctx, const json::Object& body) {
  std::string endpointId = json::optionalString(body, "endpointId", "").value_or("");
  // An endpoint named must be the organization's: another's is not found, as for none (an
  // empty list would answer, too, but a refusal says why nothing is there).
  if (!endpointId.empty() &&
      !ctx.db().queryOne("SELECT 1 FROM webhook_endpoints WHERE id = ? AND organization_id = ?",
                         {endpointId, ctx.organizationId()}))
    throw notFound("webhook endpoint " + endpointId + " not found in organization " +
                   ctx.organizationId());
  return deliveriesOf(ctx, ctx.organizationId(), endpointId);
}

json::Object deliveriesOf(RequestContext& ctx, const std::string& organizationId,
                          const std::string& endpointId) {
  std::string sql =
      "SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, "
      "d.last_http_status, d.last_error, d.next_attempt_at_ms, d.created_at_ms, d.updated_at_ms "
      "FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE "
      "e.organization_id = ?";
  std::string endpointsSql =
      "SELECT id, backlog, dropped FROM webhook_endpoints WHERE organization_id = ?";
  SqlParams params = {organizationId};
  if (!endpointId.empty()) {
    sql += " AND d.endpoint_id = ?";
    endpointsSql += " AND id = ?";
    params.push_back(endpointId);
  }
  sql += " ORDER BY d.created_at_ms DESC, d.id LIMIT 100";
  json::Array list = json::array();
  for (const auto& r : ctx.db().query(sql, params)) {
    json::Object d = json::object();
    d->set("deliveryId", r.str("id"));
    d->set("endpointId", r.str("endpoint_id"));
    d->set("eventId", r.str("event_id"));
    d->set("eventType", r.str("event_type"));
    d->set("status", r.str("status"));
    d->set("attempts", r.i64("attempts"));
    if (r.i64("last_http_status")) d->set("lastHttpStatus", r.i64("last_http_status"));
    if (!r.str("last_error").empty()) d->set("lastError", r.str("last_error"));
    if (r.str("status") == "pending")
      d->set("nextAttemptAt", json::timestamp(r.i64("next_attempt_at_ms")));
    d->set("createdAt", json::timestamp(r.i64("created_at_ms")));
    d->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
    list->add(d);
  }
  json::Array endpoints = json::array();
  for (const auto& r : ctx.db().query(endpointsSql + " ORDER BY created_at_ms, id", params)) {
    json::Object e = json::object();
    e->set("endpointId", r.str("id"));
    e->set("backlog", r.i64("backlog"));
    e->set("dropped", r.i64("dropped"));
    endpoints->add(e);
  }
  json::Object out = json::object();
  out->set("deliveries", list);
  out->set("endpoints", endpoints);
  return out;
}

}  // namespace webhooks
