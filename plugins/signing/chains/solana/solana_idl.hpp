// Anchor IDLs for Solana programs (Turnkey's smart contract interfaces): read when a smart contract
// interface is written, and used to decode an instruction's data into `parsed_instruction_data` for
// solana.tx policies:
//   {instruction_name, discriminator, named_accounts['<name>'], program_call_args['<arg>']}.
// Both IDL generations are read: legacy (isMut/isSigner, "publicKey", nested account groups,
// no discriminators, which are then Anchor's sha256("global:<snake_case name>")[0..8]) and
// Anchor 0.30 (writable/signer, "pubkey", explicit discriminators, {"defined": {"name"}}).
// Arguments are Borsh: little-endian integers, u32-prefixed strings, bytes and vectors,
// u8-tagged options and enums.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "signet/encoding.hpp"
#include "signet/json.hpp"

namespace signing {

struct IdlType {
  enum class Kind {
    kBool,
    kU8,
    kU16,
    kU32,
    kU64,
    kU128,
    kI8,
    kI16,
    kI32,
    kI64,
    kI128,
    kF32,
    kF64,
    kBytes,
    kString,
    kPublicKey,
    kVec,
    kArray,
    kOption,
    kCOption,
    kTuple,
    kSet,
    kMap,
    kDefined,
  };
  Kind kind = Kind::kBool;
  std::vector<IdlType> items;  // the element (vec, array, option, set), tuple members, key+value
  size_t length = 0;           // kArray
  std::string defined;         // kDefined: the type's name
};

struct IdlField {
  std::string name;  // empty in tuple structs and tuple variants
  IdlType type;
};

struct IdlTypeDef {
  enum class Kind { kStruct, kEnum, kAlias };
  Kind kind = Kind::kStruct;
  bool tuple = false;            // a struct whose fields have no names
  std::vector<IdlField> fields;  // kStruct; kAlias: the one aliased type
  struct Variant {
    std::string name;
    bool tuple = false;
    std::vector<IdlField> fields;  // empty for a unit variant
  };
  std::vector<Variant> variants;  // kEnum
};

struct IdlInstruction {
  std::string name;
  signet::Bytes discriminator;
  std::vector<std::string> accounts;  // names, nested groups flattened in order
  std::vector<IdlField> args;
};

struct SolanaIdl {
  std::vector<IdlInstruction> instructions;
  std::map<std::string, IdlTypeDef> types;
};

// InvalidArgument naming `field` and the entry: bad JSON, a missing `instructions` or `types`,
// an unknown type, a reference to an undefined type, a type that contains itself, a repeated
// type name, or two instructions with the same discriminator (which one decodes would be
// open).
SolanaIdl parseSolanaIdl(const std::string& text, const std::string& field);

// parsed_instruction_data for an instruction of the IDL's program called with `data` and
// `accounts` (their keys as solana.tx shows them), or null when no instruction's
// discriminator starts the data, the data does not decode to exactly its arguments, or fewer
// accounts than the instruction names were passed: policies reading it then error.
signet::json::Object decodeSolanaInstruction(const SolanaIdl& idl, const signet::Bytes& data,
                                             const std::vector<std::string>& accounts);

}  // namespace signing
