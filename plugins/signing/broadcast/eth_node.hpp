// The Ethereum JSON-RPC calls a send needs (the execution API's eth_ namespace), typed.
#pragma once

#include <optional>
#include <string>

#include "eth_tx.hpp"
#include "json_rpc.hpp"

namespace signing::broadcast {

struct Receipt {
  bool success = false;
  uint64_t blockNumber = 0;
  uint64_t gasUsed = 0;
  Uint128 effectiveGasPrice = 0;
};

struct Fees {
  Uint128 maxFeePerGas = 0;
  Uint128 maxPriorityFeePerGas = 0;
};

// A call as eth_call and eth_estimateGas take it.
struct CallRequest {
  Bytes from, to, value, data;
  std::vector<Authorization> authorizations;
  uint64_t gas = 0;  // 0: the node's default
};

class EthNode {
 public:
  explicit EthNode(JsonRpc rpc) : rpc_(std::move(rpc)) {}
  const std::string& name() const { return rpc_.name(); }

  uint64_t chainId() const;
  // eth_getTransactionCount at "pending": the next nonce, counting what the node holds.
  uint64_t nextNonce(const Bytes& address) const;
  Bytes code(const Bytes& address) const;
  // The node's suggested tip (eth_maxPriorityFeePerGas), and twice the latest base fee plus
  // the tip as the cap, so that the transaction stays includable while the base fee rises.
  Fees suggestedFees() const;
  // RpcError with the revert data when the call reverts.
  uint64_t estimateGas(const CallRequest& call) const;
  Bytes call(const CallRequest& call, const std::string& block = "latest") const;
  // The transaction hash the node gives.
  std::string sendRawTransaction(const Bytes& signedTx) const;
  std::optional<Receipt> receipt(const std::string& hash) const;

 private:
  JsonRpc rpc_;
};

// The revert data an RpcError carries: `data` as hex, or as {data: hex}; empty when none.
Bytes revertDataOf(const RpcError& e);

}  // namespace signing::broadcast
