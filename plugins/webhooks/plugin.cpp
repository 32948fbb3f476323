// The webhooks plugin's registration: the endpoint operations, the delivery query, the signing
// keys' JWKS at the API's discovery path, the legacy FEATURE_NAME_WEBHOOK, the activity event
// handler that queues deliveries, and the worker that sends them.
#include <Poco/Net/SSLManager.h>

#include <memory>

#include "deliverer.hpp"
#include "deliveries.hpp"
#include "endpoints.hpp"
#include "schema.hpp"
#include "signing_keys.hpp"

namespace {

using namespace signet;
using namespace webhooks;

void registerWebhooks(Registry& r) {
  auto settings = std::make_shared<const Settings>(parseSettings(r.settings()));
  Poco::Net::initializeSSL();  // https endpoints
  if (settings->allowInsecureUrls)
    r.startupNotice(
        "allowInsecureUrls is on: webhook endpoints may be plain http and loopback or private "
        "addresses (development only; plugins.settings.webhooks.allowInsecureUrls)");
  if (r.settings()->has("concurrentPerEndpoint"))  // a setting of versions before 0.8
    r.startupNotice(
        "plugins.settings.webhooks.concurrentPerEndpoint is ignored: one attempt is in flight "
        "an endpoint at a time");
  auto ops = std::make_shared<const EndpointOps>(EndpointOps{settings});
  auto deliverer = std::make_shared<Deliverer>(settings);
  // An endpoint operation's handler: its shape reads the parameters for the shared EndpointOps.
  auto activity = [ops](const auto& shape, auto op) -> ActivityHandler {
    return shape.handler(
        [ops, op](ActivityContext& ctx, const auto& p) { return ((*ops).*op)(ctx, p); });
  };
  // clang-format off
  r.activity({.type = "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", .path = "create_webhook_endpoint",
              .intentKey = "createWebhookEndpointIntent",  .resultKey = "createWebhookEndpointResult",
              .resource = "WEBHOOK_ENDPOINT", .action = "CREATE",
              .handler = activity(kCreateEndpoint, &EndpointOps::create),
              .parameters = kCreateEndpoint.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT", .path = "update_webhook_endpoint",
              .intentKey = "updateWebhookEndpointIntent",  .resultKey = "updateWebhookEndpointResult",
              .resource = "WEBHOOK_ENDPOINT", .action = "UPDATE",
              .handler = activity(kUpdateEndpoint, &EndpointOps::update),
              .parameters = kUpdateEndpoint.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", .path = "delete_webhook_endpoint",
              .intentKey = "deleteWebhookEndpointIntent",  .resultKey = "deleteWebhookEndpointResult",
              .resource = "WEBHOOK_ENDPOINT", .action = "DELETE",
              .handler = activity(kDeleteEndpoint, &EndpointOps::remove),
              .parameters = kDeleteEndpoint.specs()});
  r.query({"list_webhook_endpoints", [ops](RequestContext& ctx, const json::Object& b) {
             return ops->list(ctx, b); }});
  r.query({"signet_list_webhook_deliveries", listDeliveries});
  r.route({.method = "GET", .path = "/public/v1/discovery/webhooks/jwks",
           .access = RouteAccess::kPublic,
           .handler = [deliverer](RequestContext& ctx, const HttpCall&) {
             return jwksReply(ctx, deliverer->retryWindowMs()); },
           .atRoot = true});
  // clang-format on
  for (const char* event : {kEventFeatureSet, kEventFeatureRemoved})
    r.subscribe(event, [ops](ActivityContext& ctx, const std::string& e, const json::Object& p) {
      ops->featureChanged(ctx, e, p);
    });
  r.activityEvents({.handler =
                        [settings, deliverer](RequestContext& ctx, const ActivityEvent& event) {
                          enqueueDeliveries(ctx, *settings, event);
                          deliverer->wake();
                        },
                    .interestQuery = kInterestQuery});
  r.worker({"deliveries", [deliverer](WorkerContext& w) { deliverer->run(w); }});
  r.command({.name = "rotate-key",
             .summary = "sign deliveries with a new key (the old one stays published while its "
                        "deliveries may be retried)",
             .usage = "",
             .options = {},
             .run = [deliverer](CommandContext& c) {
               SigningKey key;
               c.transaction([&](RequestContext& ctx) { key = rotateKey(ctx); });
               json::Object o = json::object();
               o->set("kid", key.kid);
               o->set("publicKey", key.publicKeyHex);
               c.print(json::stringify(o));
               return 0;
             }});
  r.command({.name = "deliveries",
             .summary = "an organization's recent deliveries: status, attempts, last error",
             .usage = "--organization ORG_ID [--endpoint ENDPOINT_ID]",
             .options = {"organization", "endpoint"},
             .run = [](CommandContext& c) {
               auto org = c.option("organization");
               if (!org) throw invalidArgument("--organization is required");
               json::Object out;
               c.read([&](RequestContext& ctx) {
                 out = deliveriesOf(ctx, *org, c.option("endpoint").value_or(""));
               });
               c.print(json::stringify(out));
               return 0;
             }});
  // Both read the endpoints' counters, not the deliveries: a scrape costs the same with a
  // backlog of a hundred thousand.
  r.gauge({.name = "signet_webhooks_pending_deliveries",
           .help = "Webhook deliveries waiting for their first or next attempt",
           .read = [](RequestContext& ctx) {
             return static_cast<double>(
                 ctx.db()
                     .queryOne("SELECT COALESCE(SUM(backlog), 0) AS backlog FROM webhook_endpoints")
                     ->i64("backlog"));
           }});
  r.gauge({.name = "signet_webhooks_dropped_deliveries",
           .help = "Webhook deliveries dropped for newer ones past an endpoint's "
                   "maxBacklogPerEndpoint, over the existing endpoints' lifetimes",
           .read = [](RequestContext& ctx) {
             return static_cast<double>(
                 ctx.db()
                     .queryOne("SELECT COALESCE(SUM(dropped), 0) AS dropped FROM webhook_endpoints")
                     ->i64("dropped"));
           }});
  r.organizationDeletionHook(forgetOrganization);
  r.migrations("webhooks", migrations());
}

}  // namespace

SIGNET_PLUGIN(registerWebhooks,
              {.name = "webhooks",
               .version = "0.1.0",
               .description = "signed activity notifications, delivered at least once",
               .submitPaths = {"create_webhook_endpoint", "update_webhook_endpoint",
                               "delete_webhook_endpoint"},
               .queryPaths = {"list_webhook_endpoints", "signet_list_webhook_deliveries"},
               .routes = {"GET /public/v1/discovery/webhooks/jwks public"}})
