#include "chains/ethereum/eth_transaction.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include "chains/ethereum/rlp_checks.hpp"

#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using json::Object;
using Integer = boost::multiprecision::cpp_int;

namespace {
enum class Field {
  kUint64,
  kUint256,
  kTo,
  kToRequired,
  kData,
  kAccessList,
  kBlobHashes,
  kAuthorizations
};
struct FieldDef {
  const char* name;
  Field kind;
};

// Wire order of each type's unsigned fields, named as policies read them.
const std::vector<FieldDef>& layout(int type) {
  // clang-format off
  static const std::vector<FieldDef> legacy{
      {"nonce", Field::kUint64}, {"gas_price", Field::kUint256}, {"gas", Field::kUint64},
      {"to", Field::kTo}, {"value", Field::kUint256}, {"data", Field::kData}};
  static const std::vector<FieldDef> eip2930{
      {"chain_id", Field::kUint256}, {"nonce", Field::kUint64}, {"gas_price", Field::kUint256},
      {"gas", Field::kUint64}, {"to", Field::kTo}, {"value", Field::kUint256},
      {"data", Field::kData}, {"access_list", Field::kAccessList}};
  static const std::vector<FieldDef> eip1559{
      {"chain_id", Field::kUint256}, {"nonce", Field::kUint64},
      {"max_priority_fee_per_gas", Field::kUint256}, {"max_fee_per_gas", Field::kUint256},
      {"gas", Field::kUint64}, {"to", Field::kTo}, {"value", Field::kUint256},
      {"data", Field::kData}, {"access_list", Field::kAccessList}};
  static const std::vector<FieldDef> eip4844{
      {"chain_id", Field::kUint256}, {"nonce", Field::kUint64},
      {"max_priority_fee_per_gas", Field::kUint256}, {"max_fee_per_gas", Field::kUint256},
      {"gas", Field::kUint64}, {"to", Field::kToRequired}, {"value", Field::kUint256},
      {"data", Field::kData}, {"access_list", Field::kAccessList},
      {"max_fee_per_blob_gas", Field::kUint256}, {"blob_versioned_hashes", Field::kBlobHashes}};
  static const std::vector<FieldDef> eip7702{
      {"chain_id", Field::kUint256}, {"nonce", Field::kUint64},
      {"max_priority_fee_per_gas", Field::kUint256}, {"max_fee_per_gas", Field::kUint256},
      {"gas", Field::kUint64}, {"to", Field::kToRequired}, {"value", Field::kUint256},
      {"data", Field::kData}, {"access_list", Field::kAccessList},
      {"authorization_list", Field::kAuthorizations}};
  // clang-format on
  static const std::vector<const std::vector<FieldDef>*> byType{&legacy, &eip2930, &eip1559,
                                                                &eip4844, &eip7702};
  return *byType.at(static_cast<size_t>(type));
}

class Checker : public RlpChecker {
 public:
  using RlpChecker::RlpChecker;

  void field(const RlpItem& i, const FieldDef& def) const {
    std::string name = def.name;
    switch (def.kind) {
      case Field::kUint64:
        return uint(i, name, 8);
      case Field::kUint256:
        return uint(i, name, 32);
      case Field::kTo:
        string(i, name);
        if (!i.bytes.empty() && i.bytes.size() != 20)
          fail("to has " + std::to_string(i.bytes.size()) + " bytes, not 20 (or none)");
        return;
      case Field::kToRequired:
        return sized(i, name, 20);  // these types cannot create contracts
      case Field::kData:
        return string(i, name);
      case Field::kAccessList:
        return accessList(i, name);
      case Field::kBlobHashes:
        if (list(i, name).empty()) fail("a blob transaction needs at least one blob hash");
        for (const auto& h : i.items) sized(h, "a blob versioned hash", 32);
        return;
      case Field::kAuthorizations:
        if (list(i, name).empty()) fail("an EIP-7702 transaction needs an authorization");
        for (const auto& a : i.items) {
          // [chain_id, address, nonce, y_parity, r, s]: signed by each authority already.
          const auto& t = list(a, "an authorization");
          if (t.size() != 6) fail("an authorization does not have 6 fields");
          uint(t[0], "an authorization chain_id", 32);
          sized(t[1], "an authorization address", 20);
          uint(t[2], "an authorization nonce", 8);
          uint(t[3], "an authorization y_parity", 1);
          uint(t[4], "an authorization r", 32);
          uint(t[5], "an authorization s", 32);
        }
        return;
    }
  }
};
}  // namespace

const Bytes& EthTransaction::field(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return fields[i].bytes;
  throw internalError("no field " + name + " in a type " + std::to_string(type) + " transaction");
}

bool EthTransaction::has(const std::string& name) const {
  return std::find(names.begin(), names.end(), name) != names.end();
}

EthTransaction parseEthTransaction(const Bytes& raw, const std::string& path) {
  Checker check(path);
  if (raw.empty()) check.fail("empty");
  EthTransaction tx;
  tx.raw = raw;
  size_t skip = 0;
  if (raw[0] < 0xc0) {
    if (raw[0] == 0x76)
      check.fail("type 0x76 is a Tempo transaction; sign it as TRANSACTION_TYPE_TEMPO");
    if (raw[0] < 1 || raw[0] > 4)
      check.fail("unknown transaction type 0x" + toHex(raw.data(), 1) +
                 " (legacy and types 1 to 4 are signed)");
    tx.type = raw[0];
    skip = 1;
  }
  RlpItem top = rlpDecode(raw.data() + skip, raw.size() - skip, path);
  const auto& items = check.list(top, "the transaction");
  const auto& defs = layout(tx.type);
  if (tx.type == 3 && !items.empty() && items[0].isList)
    check.fail(
        "a blob transaction with its sidecars (the network wrapper); send the transaction body "
        "only");
  size_t count = items.size();
  if (tx.type == 0 && count == 9) {
    // EIP-155: chainId, 0, 0. Anything else in the last two is a signature.
    if (!items[7].bytes.empty() || !items[8].bytes.empty() || items[7].isList || items[8].isList)
      check.fail("the transaction is already signed (r and s are set)");
    check.uint(items[6], "chain_id", 32);
    if (items[6].bytes.empty()) check.fail("the EIP-155 chain_id is 0");
    tx.legacyChainId = items[6].bytes;
    count = 6;
  } else if (count == defs.size() + 3) {
    check.fail("the transaction is already signed (it carries a signature's 3 fields)");
  } else if (count != defs.size()) {
    check.fail("a type " + std::to_string(tx.type) + " transaction has " +
               std::to_string(defs.size()) + " fields, this one " + std::to_string(count));
  }
  for (size_t i = 0; i < count; ++i) {
    check.field(items[i], defs[i]);
    tx.fields.push_back(items[i]);
    tx.names.push_back(defs[i].name);
  }
  return tx;
}

crypto::Digest ethSigningDigest(const EthTransaction& tx) {
  // Decoding was strict, so the input is the canonical encoding the signature covers.
  return crypto::keccak256(tx.raw.data(), tx.raw.size());
}

Bytes ethSignedTransaction(const EthTransaction& tx, const crypto::RecoverableSignature& sig) {
  std::vector<Bytes> items;
  for (const auto& f : tx.fields) items.push_back(f.encoded);
  Integer v = sig.recoveryId;
  if (tx.type == 0) {
    if (tx.legacyChainId) {
      Integer chain;
      boost::multiprecision::import_bits(chain, tx.legacyChainId->begin(), tx.legacyChainId->end());
      v += chain * 2 + 35;
    } else {
      v += 27;
    }
  }
  Bytes vBytes;
  boost::multiprecision::export_bits(v, std::back_inserter(vBytes), 8);
  items.push_back(rlpEncodeUint(vBytes));
  items.push_back(rlpEncodeUint(Bytes(sig.sig.r.begin(), sig.sig.r.end())));
  items.push_back(rlpEncodeUint(Bytes(sig.sig.s.begin(), sig.sig.s.end())));
  Bytes out;
  if (tx.type != 0) out.push_back(static_cast<uint8_t>(tx.type));
  Bytes body = rlpEncodeList(items);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Object ethTxFact(const EthTransaction& tx, const std::string& fromAddress) {
  Object f = json::object();
  f->set("from", asciiLower(fromAddress));
  const Bytes& to = tx.field("to");
  f->set("to", to.empty() ? std::string() : "0x" + toHex(to));
  f->set("data", "0x" + toHex(tx.field("data")));
  for (const char* n : {"value", "gas", "nonce", "gas_price", "max_fee_per_gas",
                        "max_priority_fee_per_gas", "max_fee_per_blob_gas", "chain_id"})
    if (tx.has(n)) f->set(n, uintFact(uintDecimal(tx.field(n))));
  if (tx.legacyChainId) f->set("chain_id", uintFact(uintDecimal(*tx.legacyChainId)));
  f->set("type", tx.type == 0 ? std::string("LEGACY") : "TYPE_" + std::to_string(tx.type));
  return f;
}

}  // namespace signing
