// What one step of a send records, whatever its chain (eth_worker.cpp, sol_worker.cpp): waiting
// for the next look, backing off from a node that cannot be reached, and failing with a cause.
#pragma once

#include "broadcast.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

class SendStep {
 public:
  // One attempt: follow a BROADCASTING send to its block; sign an INITIALIZED one (unless it
  // already is) and send it. A node's error fails the send; a node that cannot be reached is
  // tried again later; any other refusal fails it with its message.
  void run();

 protected:
  SendStep(Broadcast& b, signet::WorkerContext& w, Send& s) : b_(b), w_(w), s_(s) {}
  virtual ~SendStep() = default;

  // The chain's own steps. sign() stores the signed bytes, or returns false when it failed the
  // send instead.
  virtual bool sign() = 0;
  virtual void send() = 0;
  virtual void poll() = 0;
  // v1TxError for a node's error; null for {message} alone.
  virtual signet::json::Object rpcFailure(const RpcError&) { return nullptr; }

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
