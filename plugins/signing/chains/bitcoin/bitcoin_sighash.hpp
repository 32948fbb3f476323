// Bitcoin transactions and the digests their inputs sign: the legacy SIGHASH_ALL digest
// (P2PKH), BIP-143's (segwit v0) and BIP-341's SIGHASH_DEFAULT key-path digest (Taproot).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "signet/crypto.hpp"

namespace signing {

struct BtcInput {
  signet::Bytes prevTxid;  // internal byte order (as serialized)
  uint32_t vout = 0;
  signet::Bytes scriptSig;
  uint32_t sequence = 0;
};
struct BtcOutput {
  uint64_t value = 0;
  signet::Bytes script;
};
struct BtcTx {
  uint32_t version = 0;
  std::vector<BtcInput> inputs;
  std::vector<BtcOutput> outputs;
  uint32_t locktime = 0;
  bool hadWitness = false;
};

// A transaction (witness serialization accepted); InvalidArgument naming `what` for
// truncation, trailing bytes or non-minimal sizes.
BtcTx parseBtcTx(const signet::Bytes& data, const std::string& what);
signet::Bytes serializeBtcTx(const BtcTx& tx);   // without witnesses: what the txid hashes
signet::crypto::Digest txidOf(const BtcTx& tx);  // double SHA-256, internal order

// Reads a Bitcoin CompactSize, refusing non-minimal encodings.
uint64_t readCompactSize(const signet::Bytes& data, size_t& at, const std::string& what);
void appendCompactSize(signet::Bytes& out, uint64_t n);

signet::crypto::Digest legacySighashAll(const BtcTx& tx, size_t index,
                                        const signet::Bytes& scriptCode);
signet::crypto::Digest bip143SighashAll(const BtcTx& tx, size_t index,
                                        const signet::Bytes& scriptCode, uint64_t amount);
// Every input's spent output is needed (amounts and scripts are committed to).
signet::crypto::Digest taprootKeyPathSighash(const BtcTx& tx, size_t index,
                                             const std::vector<BtcOutput>& spent);

}  // namespace signing
