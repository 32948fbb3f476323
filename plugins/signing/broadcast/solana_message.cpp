#include "solana_message.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
void compact(Bytes& out, size_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(v ? (b | 0x80) : b);
  } while (v);
}

void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

SolanaTransaction reparsed(const SolanaTransaction& tx) {
  return parseSolanaTransaction(serializeUnsigned(tx), "the rewritten transaction");
}
}  // namespace

Bytes serializeUnsigned(const SolanaTransaction& tx) {
  Bytes out;
  compact(out, tx.requiredSignatures);
  out.resize(out.size() + 64 * tx.requiredSignatures, 0);
  if (tx.versioned) out.push_back(0x80);
  out.push_back(static_cast<uint8_t>(tx.requiredSignatures));
  out.push_back(static_cast<uint8_t>(tx.readonlySigned));
  out.push_back(static_cast<uint8_t>(tx.readonlyUnsigned));
  compact(out, tx.accountKeys.size());
  for (const auto& k : tx.accountKeys) append(out, k);
  append(out, tx.recentBlockhash);
  compact(out, tx.instructions.size());
  for (const auto& ins : tx.instructions) {
    out.push_back(static_cast<uint8_t>(ins.programIndex));
    compact(out, ins.accounts.size());
    for (size_t a : ins.accounts) out.push_back(static_cast<uint8_t>(a));
    compact(out, ins.data.size());
    append(out, ins.data);
  }
  if (tx.versioned) {
    compact(out, tx.lookups.size());
    for (const auto& l : tx.lookups) {
      append(out, l.tableKey);
      compact(out, l.writable.size());
      out.insert(out.end(), l.writable.begin(), l.writable.end());
      compact(out, l.readonly.size());
      out.insert(out.end(), l.readonly.begin(), l.readonly.end());
    }
  }
  return out;
}

SolanaTransaction withBlockhash(const SolanaTransaction& tx, const Bytes& blockhash) {
  SolanaTransaction out = tx;
  out.recentBlockhash = blockhash;
  return reparsed(out);
}

SolanaTransaction withFeePayer(const SolanaTransaction& tx, const Bytes& payer) {
  SolanaTransaction out = tx;
  out.accountKeys.insert(out.accountKeys.begin(), payer);
  out.requiredSignatures += 1;
  for (auto& ins : out.instructions) {
    ins.programIndex += 1;
    for (auto& a : ins.accounts) a += 1;
  }
  return reparsed(out);
}

}  // namespace signing::broadcast
