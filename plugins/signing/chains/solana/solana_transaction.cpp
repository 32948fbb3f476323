#include "chains/solana/solana_transaction.hpp"

#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr size_t kKeySize = 32, kSignatureSize = 64;
const std::string kSystemProgram = "11111111111111111111111111111111";
const std::string kTokenProgram = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const std::string kToken2022Program = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const std::string kLookupAccount = "ADDRESS_TABLE_LOOKUP";

class Reader {
 public:
  Reader(const Bytes& b, const std::string& field) : b_(b), field_(field) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw invalidArgument("invalid field " + field_ + ": " + what + " (at byte " +
                          std::to_string(pos_) + ")");
  }
  uint8_t byte(const char* what) {
    if (pos_ >= b_.size()) fail(std::string("truncated: ") + what + " is missing");
    return b_[pos_++];
  }
  // compact-u16: 7 bits per byte, at most 3 bytes, no redundant trailing zero byte.
  size_t compact(const char* what) {
    size_t v = 0;
    for (int i = 0; i < 3; ++i) {
      uint8_t c = byte(what);
      if (i > 0 && c == 0) fail(std::string("non-canonical compact length for ") + what);
      v |= size_t{static_cast<uint8_t>(c & 0x7f)} << (7 * i);
      if (!(c & 0x80)) {
        if (v > 0xffff) fail(std::string("compact length over 65535 for ") + what);
        return v;
      }
    }
    fail(std::string("compact length longer than 3 bytes for ") + what);
  }
  Bytes take(size_t n, const char* what) {
    if (n > b_.size() - pos_) fail(std::string("truncated: ") + what + " runs past the end");
    Bytes out(b_.begin() + static_cast<std::ptrdiff_t>(pos_),
              b_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return out;
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == b_.size(); }

 private:
  const Bytes& b_;
  const std::string& field_;
  size_t pos_ = 0;
};

uint64_t le64(const Bytes& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + static_cast<size_t>(i)];
  return v;
}

}  // namespace

SolanaTransaction parseSolanaTransaction(const Bytes& raw, const std::string& field) {
  SolanaTransaction tx;
  tx.raw = raw;
  Reader r(raw, field);
  tx.signatureCount = r.compact("the signature count");
  tx.signaturesOffset = r.pos();
  r.take(tx.signatureCount * kSignatureSize, "the signature slots");
  tx.messageOffset = r.pos();
  uint8_t first = r.byte("the message header");
  if (first & 0x80) {
    if ((first & 0x7f) != 0)
      r.fail("message version " + std::to_string(first & 0x7f) + " (legacy and v0 are signed)");
    tx.versioned = true;
    first = r.byte("the message header");
  }
  tx.requiredSignatures = first;
  tx.readonlySigned = r.byte("the message header");
  tx.readonlyUnsigned = r.byte("the message header");
  if (tx.signatureCount != tx.requiredSignatures)
    r.fail(std::to_string(tx.signatureCount) + " signature slots for " +
           std::to_string(tx.requiredSignatures) + " required signatures");
  size_t keys = r.compact("the account key count");
  for (size_t i = 0; i < keys; ++i) tx.accountKeys.push_back(r.take(kKeySize, "an account key"));
  if (tx.requiredSignatures == 0 || tx.requiredSignatures > keys ||
      tx.readonlySigned >= tx.requiredSignatures ||
      tx.readonlyUnsigned > keys - tx.requiredSignatures)
    r.fail("the header's signer counts do not fit its " + std::to_string(keys) + " account keys");
  tx.recentBlockhash = r.take(kKeySize, "the recent blockhash");
  size_t count = r.compact("the instruction count");
  for (size_t i = 0; i < count; ++i) {
    SolanaInstruction ins;
    ins.programIndex = r.byte("a program id index");
    size_t n = r.compact("an instruction's account count");
    for (size_t k = 0; k < n; ++k) ins.accounts.push_back(r.byte("an account index"));
    ins.data = r.take(r.compact("an instruction's data length"), "instruction data");
    tx.instructions.push_back(std::move(ins));
  }
  size_t resolved = 0;
  if (tx.versioned) {
    size_t tables = r.compact("the address table lookup count");
    for (size_t i = 0; i < tables; ++i) {
      SolanaLookup l;
      l.tableKey = r.take(kKeySize, "an address table key");
      l.writable = r.take(r.compact("writable indexes"), "writable indexes");
      l.readonly = r.take(r.compact("readonly indexes"), "readonly indexes");
      resolved += l.writable.size() + l.readonly.size();
      tx.lookups.push_back(std::move(l));
    }
  }
  if (!r.done()) r.fail(std::to_string(raw.size() - r.pos()) + " bytes after the message");
  for (size_t i = 0; i < tx.instructions.size(); ++i) {
    const auto& ins = tx.instructions[i];
    std::string at = "instruction " + std::to_string(i);
    if (ins.programIndex >= keys)
      r.fail(at +
             "'s program id is not a static account key (programs resolved through an "
             "address lookup table are not signed)");
    for (size_t a : ins.accounts)
      if (a >= keys + resolved)
        r.fail(at + " names account " + std::to_string(a) + " of " +
               std::to_string(keys + resolved));
  }
  return tx;
}

Bytes solanaSignedTransaction(const SolanaTransaction& tx, const Bytes& publicKey,
                              const Bytes& signature) {
  for (size_t slot = 0; slot < tx.requiredSignatures; ++slot) {
    if (tx.accountKeys[slot] != publicKey) continue;
    Bytes out = tx.raw;
    std::copy(
        signature.begin(), signature.end(),
        out.begin() + static_cast<std::ptrdiff_t>(tx.signaturesOffset + slot * kSignatureSize));
    return out;
  }
  throw failedPrecondition("signWith " + base58Encode(publicKey) +
                           " is not one of the transaction's " +
                           std::to_string(tx.requiredSignatures) + " required signers");
}

Object solanaTxFact(const SolanaTransaction& tx) {
  size_t keys = tx.accountKeys.size();
  // Lookup-resolved accounts in message order: all writable ones, then all readonly ones.
  struct Resolved {
    std::string table;
    uint8_t index;
    bool writable;
  };
  std::vector<Resolved> resolved;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& l : tx.lookups)
      for (uint8_t i : pass == 0 ? l.writable : l.readonly)
        resolved.push_back({base58Encode(l.tableKey), i, pass == 0});
  auto keyOf = [&](size_t a) {
    return a < keys ? base58Encode(tx.accountKeys[a]) : kLookupAccount;
  };
  auto writable = [&](size_t a) {
    if (a >= keys) return resolved[a - keys].writable;
    if (a < tx.requiredSignatures) return a < tx.requiredSignatures - tx.readonlySigned;
    return a < keys - tx.readonlyUnsigned;
  };

  json::Array accountKeys = json::array(), programKeys = json::array(),
              instructions = json::array(), transfers = json::array(), splTransfers = json::array(),
              lookups = json::array();
  for (const auto& k : tx.accountKeys) accountKeys->add(base58Encode(k));
  std::vector<std::string> programs;
  for (const auto& ins : tx.instructions) {
    std::string program = keyOf(ins.programIndex);
    if (std::find(programs.begin(), programs.end(), program) == programs.end()) {
      programs.push_back(program);
      programKeys->add(program);
    }
    Object i = json::object();
    i->set("program_key", program);
    json::Array accounts = json::array(), insLookups = json::array();
    for (size_t a : ins.accounts) {
      Object acc = json::object();
      acc->set("account_key", keyOf(a));
      acc->set("signer", a < tx.requiredSignatures);
      acc->set("writable", writable(a));
      accounts->add(acc);
      if (a >= keys) {
        Object l = json::object();
        l->set("address_table_key", resolved[a - keys].table);
        l->set("index", static_cast<int>(resolved[a - keys].index));
        l->set("writable", resolved[a - keys].writable);
        insLookups->add(l);
      }
    }
    i->set("accounts", accounts);
    i->set("instruction_data_hex", toHex(ins.data));
    i->set("address_table_lookups", insLookups);
    instructions->add(i);

    // System Program Transfer: u32 LE 2, u64 LE lamports; accounts [from, to].
    if (program == kSystemProgram && ins.data.size() == 12 && ins.data[0] == 2 &&
        ins.data[1] == 0 && ins.data[2] == 0 && ins.data[3] == 0 && ins.accounts.size() >= 2) {
      Object t = json::object();
      t->set("from", keyOf(ins.accounts[0]));
      t->set("to", keyOf(ins.accounts[1]));
      t->set("amount", uintFact(std::to_string(le64(ins.data, 4))));
      transfers->add(t);
    }
    // SPL Transfer (3: [source, destination, owner, signers...]) and TransferChecked
    // (12: [source, mint, destination, owner, signers...]). A plain Transfer names no mint.
    if ((program == kTokenProgram || program == kToken2022Program) && !ins.data.empty()) {
      bool plain = ins.data[0] == 3 && ins.data.size() == 9 && ins.accounts.size() >= 3;
      bool checked = ins.data[0] == 12 && ins.data.size() == 10 && ins.accounts.size() >= 4;
      if (plain || checked) {
        size_t owner = plain ? 2 : 3;
        Object t = json::object();
        t->set("from", keyOf(ins.accounts[0]));
        t->set("to", keyOf(ins.accounts[plain ? 1 : 2]));
        t->set("token_mint", plain ? std::string() : keyOf(ins.accounts[1]));
        t->set("owner", keyOf(ins.accounts[owner]));
        json::Array signers = json::array();
        for (size_t k = owner + 1; k < ins.accounts.size(); ++k)
          signers->add(keyOf(ins.accounts[k]));
        t->set("signers", signers);
        t->set("amount", uintFact(std::to_string(le64(ins.data, 1))));
        splTransfers->add(t);
      }
    }
  }
  for (const auto& l : tx.lookups) {
    Object o = json::object();
    o->set("address_table_key", base58Encode(l.tableKey));
    json::Array w = json::array(), ro = json::array();
    for (uint8_t i : l.writable) w->add(static_cast<int>(i));
    for (uint8_t i : l.readonly) ro->add(static_cast<int>(i));
    o->set("writable_indexes", w);
    o->set("readonly_indexes", ro);
    lookups->add(o);
  }
  Object f = json::object();
  f->set("account_keys", accountKeys);
  f->set("program_keys", programKeys);
  f->set("instructions", instructions);
  f->set("transfers", transfers);
  f->set("spl_transfers", splTransfers);
  f->set("recent_blockhash", base58Encode(tx.recentBlockhash));
  f->set("address_table_lookups", lookups);
  return f;
}

}  // namespace signing
