// What one step of a send records, whatever its chain (eth_worker.cpp, sol_worker.cpp): waiting
// for the next look, backing off from a node that cannot be reached, and failing with a cause.
#pragma once

#include "broadcast.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

class SendStep {
 protected:
  SendStep(Broadcast& b, signet::WorkerContext& w, Send& s) : b_(b), w_(w), s_(s) {}

  // Not there yet (no receipt, no confirmation): look again after pollIntervalMs.
  void later();
  // Looked for longer than giveUpSeconds.
  bool waitedTooLong() const;
  // The node could not be asked: again later with a growing wait, until giveUpSeconds after the
  // send was recorded; then FAILED with the cause.
  void retry(const std::string& cause);
  // What a sponsored send cost, in micro-USD: `baseUnits` of the chain's coin (10^-decimals
  // each) at the current price, else at the price read when it was signed.
  Uint128 usdCost(Uint128 baseUnits, int decimals);
  // FAILED with `cause` as txError and `error` (v1TxError; {message: cause} when null).
  void fail(const std::string& cause, signet::json::Object error = nullptr);

  Broadcast& b_;
  signet::WorkerContext& w_;
  Send& s_;
};

}  // namespace signing::broadcast
