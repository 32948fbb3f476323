// Solana wire transactions: compact-u16 signature slots, then a legacy
// or v0 message. The message is signed with Ed25519 and the signature written into the slot
// of signWith's key among the required signers. Also the solana.tx policy fact
// (Turnkey's policy language): account and program keys, instructions with their accounts,
// top-level System Program transfers, SPL Token (and Token-2022) Transfer/TransferChecked, the
// recent blockhash and address table lookups.
#pragma once

#include <string>
#include <vector>

#include "signet/encoding.hpp"
#include "signet/json.hpp"

namespace signing {

struct SolanaInstruction {
  size_t programIndex = 0;
  std::vector<size_t> accounts;  // indexes into static keys, then lookup-resolved accounts
  signet::Bytes data;
};
struct SolanaLookup {
  signet::Bytes tableKey;
  std::vector<uint8_t> writable, readonly;
};
struct SolanaTransaction {
  signet::Bytes raw;
  size_t signaturesOffset = 0, signatureCount = 0, messageOffset = 0;
  bool versioned = false;
  size_t requiredSignatures = 0, readonlySigned = 0, readonlyUnsigned = 0;
  std::vector<signet::Bytes> accountKeys;  // static keys
  signet::Bytes recentBlockhash;
  std::vector<SolanaInstruction> instructions;
  std::vector<SolanaLookup> lookups;

  signet::Bytes message() const { return signet::Bytes(raw.begin() + messageOffset, raw.end()); }
};

// InvalidArgument naming `field`: truncation, trailing bytes, a signature count that is not
// the header's, an index out of range, an unknown message version, or a program id that an
// address lookup table would resolve (which the policy facts could not name).
SolanaTransaction parseSolanaTransaction(const signet::Bytes& raw, const std::string& field);

// The transaction with `signature` in the slot of `publicKey`; FailedPrecondition when that
// key is not one of its required signers.
signet::Bytes solanaSignedTransaction(const SolanaTransaction& tx, const signet::Bytes& publicKey,
                                      const signet::Bytes& signature);

signet::json::Object solanaTxFact(const SolanaTransaction& tx);

}  // namespace signing
