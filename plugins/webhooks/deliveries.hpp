// The delivery outbox: what the event handler queues and the listings read.
//
// The event handler (run by the core after the activity's commit, in a transaction that also
// takes the event off the core's outbox) stores the event's body once (webhook_payloads) and
// writes one delivery row per matching endpoint: the organization's own and its parent's. Each
// endpoint counts its pending deliveries (its backlog). Past maxBacklogPerEndpoint the pending
// delivery due soonest, the oldest in practice, is marked `dropped` and counted on the endpoint,
// so that one receiver that is down cannot grow the store without bound. A body is deleted once
// no delivery waits for it. deliverer.hpp sends the deliveries.
#pragma once

#include <string>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace webhooks {

// Whether an active endpoint of the organization, or of its parent, has an active subscription
// to activity updates: the activity events the plugin takes (ActivityEventsSpec::interestQuery).
// Without one, an activity costs the plugin nothing.
extern const std::string kInterestQuery;
void enqueueDeliveries(signet::RequestContext& ctx, const Settings& settings,
                       const signet::ActivityEvent& event);

// A delivery left the pending state: the endpoint's backlog shrinks, and the event's body goes
// when no other endpoint still waits for it.
void deliveryEnded(signet::Db& db, const std::string& endpointId, const std::string& eventId);
// Before an endpoint's deliveries are deleted: the bodies of its pending events that no other
// endpoint waits for.
void forgetPayloadsOnlyFor(signet::Db& db, const std::string& endpointId);

// {deliveries: [{deliveryId, endpointId, eventId, eventType, status, attempts, lastHttpStatus,
// lastError, nextAttemptAt, createdAt, updatedAt}], newest first, and endpoints: [{endpointId,
// backlog, dropped}]} for one endpoint of the organization (`endpointId`) or all of them.
signet::json::Object listDeliveries(signet::RequestContext& ctx, const signet::json::Object& body);
signet::json::Object deliveriesOf(signet::RequestContext& ctx, const std::string& organizationId,
                                  const std::string& endpointId);

}  // namespace webhooks
