// Sending transactions, not only signing them: eth_send_transaction (V1 and V2, one call as
// EIP-1559, batches and sponsored sends through EIP-7702 delegation to the batch executor),
// eth_undelegate_7702, eth_send_raw_transaction, sol_send_transaction (V1 and V2, optionally
// with the sponsor as fee payer), get_send_transaction_status, get_nonces, and the gas
// sponsorship limits (upsert_gas_usage_config, get_gas_usage).
//
// The activity checks the request and records the send; the worker fills what the node must
// say (nonce, fees, gas, blockhash), signs with the keys the activity's policies approved,
// sends, and follows the transaction to INCLUDED or FAILED (sends.hpp). It is part of the
// signing plugin because it signs with the signing plugin's keys and its policies read the
// signing plugin's eth and solana facts. docs/broadcast.md describes it.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "eth_node.hpp"
#include "prices.hpp"
#include "sends.hpp"
#include "settings.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing::broadcast {

// A call of eth_send_transaction: V2's entries of calls, and V1's top-level to, value and data.
struct EthCallParameters {
  std::string to;
  std::optional<std::string> value, data;
};
// eth_send_transaction's parameters, every version's: V1 sends one call (to, value, data), V2
// a list of them (calls); each version's shape requires its own and leaves the other's out.
struct EthSendTransactionParameters {
  std::string from, caip2;
  std::optional<std::string> to, value, data;           // V1
  std::optional<std::vector<EthCallParameters>> calls;  // V2
  std::optional<std::string> nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas, deadline,
      gasStationNonce;
  std::optional<bool> sponsor;
};
struct EthUndelegateParameters {
  std::string from, caip2;
  std::optional<std::string> nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas;
};
struct EthSendRawTransactionParameters {
  std::string signedTransaction, caip2;
};
// sol_send_transaction's parameters, every version's: V1 names one signer (signWith), V2 a list
// (signWiths); each version's shape requires its own.
struct SolSendTransactionParameters {
  std::string unsignedTransaction, caip2;
  std::optional<std::string> signWith;                // V1
  std::optional<std::vector<std::string>> signWiths;  // V2
  std::optional<std::string> recentBlockhash;
  std::optional<bool> sponsor;
};
extern const signet::Shape<EthSendTransactionParameters> kEthSendTransactionV1,
    kEthSendTransactionV2;
extern const signet::Shape<EthUndelegateParameters> kEthUndelegate;
extern const signet::Shape<EthSendRawTransactionParameters> kEthSendRawTransaction;
extern const signet::Shape<SolSendTransactionParameters> kSolSendTransactionV1,
    kSolSendTransactionV2;

class Broadcast {
 public:
  explicit Broadcast(Settings s) : settings_(std::move(s)), prices_(settings_) {}

  // eth_send_transaction: V1 (to, value, data) and V2 (calls), by the activity's version.
  signet::json::Object ethSendTransaction(signet::ActivityContext& ctx,
                                          const EthSendTransactionParameters& p);
  signet::json::Object ethUndelegate(signet::ActivityContext& ctx,
                                     const EthUndelegateParameters& p);
  signet::json::Object ethSendRawTransaction(signet::ActivityContext& ctx,
                                             const EthSendRawTransactionParameters& p);
  signet::json::Object getNonces(signet::RequestContext& ctx, const signet::json::Object& body);
  // sol_send_transaction: V1 (base64, signWith) and V2 (hex, signWiths).
  signet::json::Object solSendTransaction(signet::ActivityContext& ctx,
                                          const SolSendTransactionParameters& p);

  // The worker: moves every due send one step, until the gateway stops.
  void run(signet::WorkerContext& w);
  // The history worker: a round of each followed chain's follower (history.hpp) per poll.
  void followHistory(signet::WorkerContext& w);

  const Settings& settings() const { return settings_; }
  Prices& prices() { return prices_; }
  // The configured node of a chain (normalized CAIP-2), or nullopt.
  std::optional<JsonRpc> node(const std::string& caip2) const;
  // An Ethereum node whose eth_chainId was checked against the chain it is configured for.
  EthNode ethNode(const std::string& caip2);

 private:
  void wake();
  void step(signet::WorkerContext& w, Send& s);

  Settings settings_;
  Prices prices_;
  std::atomic<signet::WorkerContext*> worker_{nullptr};
  std::mutex checkedMutex_;
  std::set<std::string> checkedChains_;  // whose node's chain id was checked
};

// The worker's steps per chain family (eth_worker.cpp, sol_worker.cpp): one attempt at moving
// the send along, recording what happened.
void stepEth(Broadcast& b, signet::WorkerContext& w, Send& s);
void stepSol(Broadcast& b, signet::WorkerContext& w, Send& s);

enum class ChainFamily { kAny, kEthereum, kSolana };
// The normalized chain `given` names, of that family, when a node is configured for it;
// InvalidArgument naming `field` otherwise.
std::string configuredChain(const Broadcast& b, const std::string& given, const std::string& field,
                            ChainFamily family);
// The same for an activity's parameters.caip2, given as `caip2`: an Ethereum chain, or a
// Solana one when `solana`.
std::string requireChain(const Broadcast& b, const std::string& caip2, bool solana);

void registerBroadcast(signet::Registry& r, std::shared_ptr<Broadcast> b);

}  // namespace signing::broadcast
