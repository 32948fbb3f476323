// Unsigned Ethereum transactions: legacy (with or without the
// EIP-155 chainId,0,0 tail) and EIP-2718 typed transactions of types 1 (EIP-2930), 2
// (EIP-1559), 3 (EIP-4844, body only) and 4 (EIP-7702). Parsed strictly, signed over
// keccak256 of the exact input, and re-emitted with the signature; plus the eth.tx policy
// fact (Turnkey's policy language).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chains/ethereum/rlp.hpp"
#include "signet/crypto.hpp"
#include "signet/json.hpp"

namespace signing {

struct EthTransaction {
  int type = 0;                    // 0 = legacy
  std::vector<RlpItem> fields;     // the unsigned fields in wire order (EIP-155 tail excluded)
  std::vector<std::string> names;  // the policy name of each field (nonce, gas_price, ...)
  std::optional<signet::Bytes> legacyChainId;  // EIP-155, big-endian
  signet::Bytes raw;                           // the input, which is what gets hashed

  const signet::Bytes& field(const std::string& name) const;  // a string field, by name
  bool has(const std::string& name) const;
};

// InvalidArgument naming `fieldPath` for anything that is not one unsigned transaction:
// unknown types, a blob wrapper with sidecars, a signature already present, bad field sizes.
EthTransaction parseEthTransaction(const signet::Bytes& raw, const std::string& fieldPath);

signet::crypto::Digest ethSigningDigest(const EthTransaction& tx);

// The signed transaction: legacy v = 27 + y or chainId * 2 + 35 + y; typed yParity = y.
signet::Bytes ethSignedTransaction(const EthTransaction& tx,
                                   const signet::crypto::RecoverableSignature& sig);

// eth.tx: from (the signer's address), to ('' on contract creation), data, value, gas,
// nonce, chain_id (absent on a pre-EIP-155 legacy transaction), the fee fields of its type,
// and type (LEGACY, TYPE_1 ... TYPE_4). Integers are u256, addresses and data lowercase hex.
signet::json::Object ethTxFact(const EthTransaction& tx, const std::string& fromAddress);

}  // namespace signing
