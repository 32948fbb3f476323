// Ethereum contract ABIs (the Solidity ABI specification): the JSON an operator uploads as a
// smart contract interface, and the decoding of calldata against it into what policies read
// as eth.tx.function_name, eth.tx.function_signature and eth.tx.contract_call_args.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "signet/encoding.hpp"
#include "signet/json.hpp"

namespace signing {

struct AbiParam;
struct AbiType {
  enum class Kind { kUint, kInt, kAddress, kBool, kFixedBytes, kBytes, kString, kArray, kTuple };
  Kind kind = Kind::kUint;
  int size = 0;                      // bits of kUint/kInt, bytes of kFixedBytes
  std::optional<size_t> length;      // kArray: fixed length, or none for T[]
  std::shared_ptr<AbiType> element;  // kArray
  std::vector<AbiParam> components;  // kTuple
  std::string canonical;             // as it appears in a function signature
};
struct AbiParam {
  std::string name;
  AbiType type;
};
struct AbiFunction {
  std::string name;
  std::vector<AbiParam> inputs;
  std::string signature;  // transfer(address,uint256)
  std::array<uint8_t, 4> selector{};
};

// The function entries of a JSON ABI (events, errors, constructors and the like are
// skipped). InvalidArgument naming `field`, the entry and the type for anything malformed,
// including fixed-point types, which the gateway does not decode.
std::vector<AbiFunction> parseAbi(const std::string& abiJson, const std::string& field);

struct DecodedCall {
  std::string name;
  std::string selectorHex;    // 0x + 8 lowercase hex
  signet::json::Object args;  // {"$map": {name: value}}; unnamed parameters by position
};
// Calldata decoded by its selector; nullopt when the selector is not in the ABI or the
// arguments are not a canonical encoding (out-of-range offsets, dirty padding, ...).
// Values: integers as {"$uint"/"$int": decimal}, addresses, bytes and bytesN as 0x-lowercase
// hex, tuples and arrays as lists (so a struct argument is read by position: call[0]).
std::optional<DecodedCall> decodeCall(const std::vector<AbiFunction>& abi,
                                      const signet::Bytes& calldata);

}  // namespace signing
