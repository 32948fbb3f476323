#include "endpoints.hpp"

#include "deliveries.hpp"
#include "filters.hpp"
#include "url_policy.hpp"

namespace webhooks {

using namespace signet;

namespace {

const char* kFeature = "FEATURE_NAME_WEBHOOK";

json::Object endpointJson(Db& db, const Row& e) {
  json::Object o = json::object();
  o->set("endpointId", e.str("id"));
  o->set("organizationId", e.str("organization_id"));
  o->set("url", e.str("url"));
  o->set("name", e.str("name"));
  o->set("isActive", e.i64("is_active") != 0);
  json::Array subs = json::array();
  for (const auto& s :
       db.query("SELECT event_type, filters_json, is_active FROM webhook_subscriptions WHERE "
                "endpoint_id = ? ORDER BY position",
                {e.str("id")})) {
    json::Object sub = json::object();
    sub->set("eventType", s.str("event_type"));
    if (!s.str("filters_json").empty()) sub->set("filtersJson", s.str("filters_json"));
    sub->set("isActive", s.i64("is_active") != 0);
    subs->add(sub);
  }
  o->set("subscriptions", subs);
  return o;
}

const char* kEndpointColumns = "id, organization_id, name, url, is_active, legacy";

// The organization's endpoint `id`: NotFound for an id of another organization, as for none.
Row requireEndpoint(RequestContext& ctx, const std::string& id) {
  auto row = ctx.db().queryOne(std::string("SELECT ") + kEndpointColumns +
                                   " FROM webhook_endpoints WHERE id = ? AND organization_id = ?",
                               {id, ctx.organizationId()});
  if (!row || row->i64("legacy") != 0)
    throw notFound("webhook endpoint " + id + " not found in organization " + ctx.organizationId());
  return *row;
}

// A name of only blanks would show as none in a list.
const std::string& requireNonBlankName(const std::string& name) {
  if (name.find_first_not_of(" \t") == std::string::npos)
    throw invalidArgument("invalid field parameters.name: must not be empty");
  return name;
}

void addSubscriptions(ActivityContext& ctx, const std::string& endpointId,
                      const std::vector<SubscriptionParameters>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    std::string at = "parameters.subscriptions[" + std::to_string(i) + "]";
    const SubscriptionParameters& s = list[i];
    const std::string& type = s.eventType;
    if (type != kActivityUpdates) {
      bool known = type == "BALANCE_CONFIRMED_UPDATES" || type == "BALANCE_FINALIZED_UPDATES" ||
                   type == "SEND_TRANSACTION_STATUS_UPDATES";
      throw invalidArgument(
          "invalid field " + at + ".eventType: \"" + type + "\" " +
          (known ? "is not delivered by this gateway yet (the signing plugin's sends and "
                   "balances emit no events); only ACTIVITY_UPDATES can be subscribed to"
                 : "is not an event type; only ACTIVITY_UPDATES can be subscribed to"));
    }
    const std::string filters = s.filtersJson.value_or("");
    parseFilter(filters, at + ".filtersJson");
    ctx.db().exec(
        "INSERT INTO webhook_subscriptions (id, endpoint_id, event_type, filters_json, is_active, "
        "position) VALUES (?, ?, ?, ?, ?, ?)",
        {ctx.newId(), endpointId, type, filters, int64_t(s.isActive.value_or(true) ? 1 : 0),
         int64_t(i)});
  }
}

json::Object endpointResult(RequestContext& ctx, const std::string& id) {
  auto row = ctx.db().queryOne(
      std::string("SELECT ") + kEndpointColumns + " FROM webhook_endpoints WHERE id = ?", {id});
  json::Object r = json::object();
  r->set("endpointId", id);
  r->set("webhookEndpoint", endpointJson(ctx.db(), *row));
  return r;
}

void deleteEndpoint(Db& db, const std::string& id) {
  db.exec("DELETE FROM webhook_subscriptions WHERE endpoint_id = ?", {id});
  forgetPayloadsOnlyFor(db, id);
  db.exec("DELETE FROM webhook_deliveries WHERE endpoint_id = ?", {id});
  db.exec("DELETE FROM webhook_endpoints WHERE id = ?", {id});
}

}  // namespace

namespace {
const Shape<SubscriptionParameters> kSubscription = {
    field("eventType", &SubscriptionParameters::eventType),
    field("filtersJson", &SubscriptionParameters::filtersJson),
    field("isActive", &SubscriptionParameters::isActive)};
}  // namespace

// A URL's and a name's bounds are the hosted API's.
const Shape<CreateEndpointParameters> kCreateEndpoint = {
    field("url", &CreateEndpointParameters::url, {.maxLength = 2048}),
    field("name", &CreateEndpointParameters::name, {.maxLength = 256, .displayName = true}),
    field("subscriptions", &CreateEndpointParameters::subscriptions, kSubscription)};
const Shape<UpdateEndpointParameters> kUpdateEndpoint = {
    field("endpointId", &UpdateEndpointParameters::endpointId, {.uuid = true}),
    field("url", &UpdateEndpointParameters::url, {.maxLength = 2048}),
    field("name", &UpdateEndpointParameters::name, {.maxLength = 256, .displayName = true}),
    field("isActive", &UpdateEndpointParameters::isActive)};
const Shape<DeleteEndpointParameters> kDeleteEndpoint = {
    field("endpointId", &DeleteEndpointParameters::endpointId, {.uuid = true})};

json::Object EndpointOps::create(ActivityContext& ctx, const CreateEndpointParameters& p) const {
  std::string url = checkUrl(p.url, "parameters.url", settings->allowInsecureUrls);
  const std::string& name = requireNonBlankName(p.name);
  auto count = ctx.db()
                   .queryOne(
                       "SELECT COUNT(*) AS n FROM webhook_endpoints WHERE organization_id = ? AND "
                       "legacy = 0",
                       {ctx.organizationId()})
                   ->i64("n");
  if (count >= settings->maxEndpointsPerOrganization)
    throw resourceExhausted("organization " + ctx.organizationId() + " already has " +
                            std::to_string(count) + " webhook endpoints, the limit " +
                            "(plugins.settings.webhooks.maxEndpointsPerOrganization)");
  std::string id = ctx.newId();
  ctx.db().exec(
      "INSERT INTO webhook_endpoints (id, organization_id, name, url, is_active, legacy, "
      "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, 1, 0, ?, ?)",
      {id, ctx.organizationId(), name, url, ctx.nowMs(), ctx.nowMs()});
  if (p.subscriptions) addSubscriptions(ctx, id, *p.subscriptions);
  return endpointResult(ctx, id);
}

json::Object EndpointOps::update(ActivityContext& ctx, const UpdateEndpointParameters& p) const {
  const std::string& id = p.endpointId;
  Row e = requireEndpoint(ctx, id);
  std::string url = e.str("url"), name = e.str("name");
  int64_t active = e.i64("is_active");
  if (p.url) url = checkUrl(*p.url, "parameters.url", settings->allowInsecureUrls);
  if (p.name) name = requireNonBlankName(*p.name);
  if (p.isActive) active = *p.isActive ? 1 : 0;
  ctx.db().exec(
      "UPDATE webhook_endpoints SET url = ?, name = ?, is_active = ?, updated_at_ms = ? WHERE "
      "id = ?",
      {url, name, active, ctx.nowMs(), id});
  return endpointResult(ctx, id);
}

json::Object EndpointOps::remove(ActivityContext& ctx, const DeleteEndpointParameters& p) const {
  const std::string& id = p.endpointId;
  requireEndpoint(ctx, id);
  deleteEndpoint(ctx.db(), id);
  json::Object r = json::object();
  r->set("endpointId", id);
  return r;
}

json::Object EndpointOps::list(RequestContext& ctx, const json::Object&) const {
  json::Array out = json::array();
  for (const auto& e : ctx.db().query(std::string("SELECT ") + kEndpointColumns +
                                          " FROM webhook_endpoints WHERE organization_id = ? AND "
                                          "legacy = 0 ORDER BY created_at_ms, id",
                                      {ctx.organizationId()}))
    out->add(endpointJson(ctx.db(), e));
  json::Object r = json::object();
  r->set("webhookEndpoints", out);
  return r;
}

// The legacy feature is an endpoint of its own (legacy = 1, not listed), subscribed to every
// activity update, replaced whenever the feature is set again.
void EndpointOps::featureChanged(ActivityContext& ctx, const std::string& event,
                                 const json::Object& payload) const {
  if (payload->optValue<std::string>("name", "") != kFeature) return;
  for (const auto& row :
       ctx.db().query("SELECT id FROM webhook_endpoints WHERE organization_id = ? AND legacy = 1",
                      {ctx.organizationId()}))
    deleteEndpoint(ctx.db(), row.str("id"));
  if (event != kEventFeatureSet) return;
  std::string url = checkUrl(payload->optValue<std::string>("value", ""), "parameters.value",
                             settings->allowInsecureUrls);
  std::string id = ctx.newId();
  ctx.db().exec(
      "INSERT INTO webhook_endpoints (id, organization_id, name, url, is_active, legacy, "
      "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, 1, 1, ?, ?)",
      {id, ctx.organizationId(), std::string(kFeature), url, ctx.nowMs(), ctx.nowMs()});
  ctx.db().exec(
      "INSERT INTO webhook_subscriptions (id, endpoint_id, event_type, filters_json, is_active, "
      "position) VALUES (?, ?, ?, '', 1, 0)",
      {ctx.newId(), id, std::string(kActivityUpdates)});
}

void forgetOrganization(ActivityContext& ctx, const std::string& organizationId, bool) {
  for (const auto& row : ctx.db().query(
           "SELECT id FROM webhook_endpoints WHERE organization_id = ?", {organizationId}))
    deleteEndpoint(ctx.db(), row.str("id"));
}

}  // namespace webhooks
