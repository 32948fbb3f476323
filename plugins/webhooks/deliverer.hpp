// From queued deliveries to signed POSTs, one attempt in flight an endpoint.
//
// The worker looks for endpoints with a delivery due and takes each one's sending lease (on
// PostgreSQL with FOR UPDATE SKIP LOCKED, so gateways sharing a store never send to one
// endpoint at once). A sender thread then works through that endpoint's due deliveries in
// order, one at a time, each in one transaction that records the last outcome, claims the next
// delivery and extends the lease. It hands the endpoint back after a turn (kTurnDeliveries or
// kTurnMs), so that more endpoints than senders all progress. Outcomes:
//   2xx                      delivered
//   3xx, 4xx, 429            failed, not retried (redirects are not followed)
//   no answer, 5xx           retried after the next wait of retryScheduleSeconds, +-20 %
//                            jitter, with a fresh timestamp and signature and the same event id;
//                            dead once the schedule is used up
// A lease lasts twice the attempt's timeout and five seconds from its last extension: a gateway
// that dies mid-attempt leaves the endpoint to be taken again, and the delivery in flight is
// sent again, so every delivery is made at least once.
#pragma once

#include <atomic>
#include <memory>

#include "settings.hpp"
#include "signet/plugin.hpp"

namespace webhooks {

class Deliverer {
 public:
  explicit Deliverer(std::shared_ptr<const Settings> settings) : settings_(std::move(settings)) {}
  void run(signet::WorkerContext& worker);
  // New deliveries were written: look now rather than at the next poll.
  void wake();
  // How long a retired signing key stays published: the whole retry schedule, and a margin.
  int64_t retryWindowMs() const;

  static constexpr int kTurnDeliveries = 200;
  static constexpr int64_t kTurnMs = 2000;

 private:
  struct Claim;
  void drain(signet::WorkerContext& worker, const std::string& endpointId);
  std::optional<Claim> claimNext(signet::RequestContext& ctx, const std::string& endpointId);
  void record(signet::RequestContext& ctx, const Claim& c, int httpStatus,
              const std::string& failure);
  int64_t leaseEnd(int64_t nowMs) const;

  std::shared_ptr<const Settings> settings_;
  std::atomic<signet::WorkerContext*> worker_{nullptr};
  std::atomic<bool> woken_{false};  // wake() was called since the last look (run)
};

}  // namespace webhooks
