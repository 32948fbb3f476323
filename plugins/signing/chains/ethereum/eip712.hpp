// EIP-712 typed data hashing from the JSON clients send ({types, domain, primaryType,
// message}) and the EIP-7702 authorization digest (EIP-712, EIP-7702).
#pragma once

#include <string>

#include "signet/crypto.hpp"
#include "signet/json.hpp"

namespace signing {

// keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(primaryType, message)); with primaryType
// EIP712Domain, keccak256(0x1901 ‖ domainSeparator). Without an EIP712Domain type, the
// domain's type is derived from the fields present (name, version, chainId,
// verifyingContract, salt). Integers may be JSON numbers, decimal strings or 0x-hex.
// InvalidArgument naming the offending type or field.
signet::crypto::Digest eip712Digest(const signet::json::Object& typedData);

// keccak256(0x05 ‖ rlp([chainId, address, nonce])) from {"address","chainId","nonce"}.
signet::crypto::Digest eip7702AuthorizationDigest(const signet::json::Object& authorization);

}  // namespace signing
