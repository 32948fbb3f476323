// The gateway's side of contracts/SignetBatchExecutor.sol: the calldata of execute() and
// nonce(), and the EIP-712 digest an account signs for a sponsored batch. The contract and
// this file must agree; the chain tests run them against each other.
#pragma once

#include <string>
#include <vector>

#include "quantity.hpp"

namespace signing::broadcast {

struct EthCall {
  Bytes to;     // 20 bytes
  Bytes value;  // 32 bytes, big-endian
  Bytes data;
};

// execute((address,uint256,bytes)[] calls, uint256 deadline, bytes signature)
Bytes executeCalldata(const std::vector<EthCall>& calls, const Bytes& deadline32,
                      const Bytes& signature);
// nonce()
Bytes nonceCalldata();
// keccak256(0x1901 ‖ domain ‖ hashStruct(BatchExecution{calls, nonce, deadline})) with the
// domain {name "SignetBatchExecutor", version "1", chainId, verifyingContract = the account}.
crypto::Digest batchDigest(uint64_t chainId, const Bytes& account,
                           const std::vector<EthCall>& calls, const Bytes& nonce32,
                           const Bytes& deadline32);

// The 4-byte selector of CallFailed(uint256,address,bytes), and its decoding.
struct CallFailure {
  uint64_t index = 0;
  Bytes to;
  Bytes reason;
};
std::optional<CallFailure> decodeCallFailed(const Bytes& revertData);

}  // namespace signing::broadcast
