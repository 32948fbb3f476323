// What a reverted call says, as get_send_transaction_status reports it: a revert chain from the
// outermost contract to the innermost (v1RevertChainEntry), decoded from the revert data:
// Error(string) and Panic(uint256) as native errors, the batch executor's CallFailed as a custom
// error wrapping its call's own revert, and anything else as unknown with its selector.
#pragma once

#include <string>

#include "quantity.hpp"
#include "signet/json.hpp"

namespace signing::broadcast {

// `address`: the contract the data came from (0x-hex).
signet::json::Array revertChain(const std::string& address, const Bytes& revertData);
// One line for txError: the innermost entry's displayMessage.
std::string revertSummary(const signet::json::Array& chain);

}  // namespace signing::broadcast
