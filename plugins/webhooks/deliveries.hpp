// From activity events to signed POSTs.
//
// The event handler (run by the core after the activity's commit, in a transaction that also
// takes the event off the core's outbox) writes one delivery row per matching endpoint: the
// organization's own and its parent's. The worker claims due rows (on PostgreSQL with FOR
// UPDATE SKIP LOCKED, so gateways sharing a store never send one row at once), sends them on a
// pool of sender threads, at most `concurrentPerEndpoint` at a time per endpoint, and records
// the outcome:
//   2xx                      delivered
//   3xx, 4xx, 429            failed, not retried (redirects are not followed)
//   no answer, 5xx           retried after the next wait of retryScheduleSeconds, +-20 %
//                            jitter, with a fresh timestamp and signature and the same event id;
//                            dead once the schedule is used up
// A claim lasts twice the attempt's timeout and five seconds: a gateway that dies mid-attempt
// leaves its rows to be claimed again, so every delivery is made at least once.
#pragma once

#include <atomic>
#include <memory>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace webhooks {

void enqueueDeliveries(signet::RequestContext& ctx, const signet::ActivityEvent& event);

// {deliveries: [{deliveryId, endpointId, eventId, eventType, status, attempts, lastHttpStatus,
// lastError, nextAttemptAt, createdAt, updatedAt}]}, newest first, for one endpoint of the
// organization (`endpointId`, required) or all of them.
signet::json::Object listDeliveries(signet::RequestContext& ctx, const signet::json::Object& body);
signet::json::Object deliveriesOf(signet::RequestContext& ctx, const std::string& organizationId,
                                  const std::string& endpointId);

class Deliverer {
 public:
  explicit Deliverer(std::shared_ptr<const Settings> settings) : settings_(std::move(settings)) {}
  void run(signet::WorkerContext& worker);
  // New deliveries were written: look now rather than at the next poll.
  void wake();
  // How long a retired signing key stays published: the whole retry schedule, and a margin.
  int64_t retryWindowMs() const;

 private:
  std::shared_ptr<const Settings> settings_;
  std::atomic<signet::WorkerContext*> worker_{nullptr};
};

}  // namespace webhooks
