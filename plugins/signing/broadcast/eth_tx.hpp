// The transactions the gateway builds to send: EIP-1559 (type 2), and EIP-7702 (type 4) with
// its authorization list, each as the RLP its type defines, signed over keccak256 of the
// type byte and the unsigned fields.
#pragma once

#include <optional>
#include <vector>

#include "quantity.hpp"
#include "signet/crypto.hpp"

namespace signing::broadcast {

// An EIP-7702 authorization: delegate the signer's account to `address` (zero: undelegate).
struct Authorization {
  uint64_t chainId = 0;
  Bytes address;  // 20 bytes
  uint64_t nonce = 0;
  crypto::RecoverableSignature signature;
};
// keccak256(0x05 ‖ rlp([chainId, address, nonce])): what the account signs.
crypto::Digest authorizationDigest(uint64_t chainId, const Bytes& address, uint64_t nonce);

struct EthTx {
  uint64_t chainId = 0;
  uint64_t nonce = 0;
  Uint128 maxPriorityFeePerGas = 0;
  Uint128 maxFeePerGas = 0;
  uint64_t gas = 0;
  Bytes to;     // 20 bytes
  Bytes value;  // 32 bytes, big-endian
  Bytes data;
  std::vector<Authorization> authorizations;  // non-empty: type 4

  int type() const { return authorizations.empty() ? 2 : 4; }
  crypto::Digest signingDigest() const;
  Bytes signedBytes(const crypto::RecoverableSignature& sig) const;
};

// The signer's account: the last 20 bytes of keccak256 of its uncompressed public key.
Bytes ethAddressOf(const crypto::SecretBytes& privateKey);

}  // namespace signing::broadcast
