// On-ramp purchases: init_fiat_on_ramp (the widget URL, a transaction to follow, MoonPay's URL
// signature), get_onramp_transaction_status, and the worker that asks the providers about
// pending purchases outside any request.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "purchase.hpp"
#include "settings.hpp"
#include "signet/handoff.hpp"
#include "signet/plugin.hpp"

namespace fiat_onramp {

// A Coinbase session token fetched by init's preparer (outside the write lock), or the reason
// it could not be, for the handler that runs right after (signet/handoff.hpp).
struct PreparedToken {
  std::string token;
  std::string error;  // set when the provider could not be reached
};

// Statuses a refresh learned, for the worker to store (queries have no write transaction).
class StatusReports {
 public:
  void put(const std::string& transactionId, const std::string& status);
  std::map<std::string, std::string> drain();

 private:
  static constexpr size_t kMaxEntries = 10'000;
  std::mutex mutex_;
  std::map<std::string, std::string> entries_;
};

struct OnRamp {
  Settings settings;
  signet::Handoff<PreparedToken> tokens;
  StatusReports reports;
  std::atomic<signet::WorkerContext*> worker{nullptr};  // while the worker runs

  void prepareInit(signet::RequestContext& ctx, const PurchaseParameters& p);
  signet::json::Object init(signet::ActivityContext& ctx, const PurchaseParameters& p);
  signet::json::Object status(signet::RequestContext& ctx, const signet::json::Object& body);
  void runWorker(signet::WorkerContext& w);
};

void forgetOrganization(signet::ActivityContext& ctx, const std::string& organizationId, bool);

}  // namespace fiat_onramp
