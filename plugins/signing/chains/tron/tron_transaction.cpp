#include "chains/tron/tron_transaction.hpp"

#include <algorithm>
#include <set>

#include "chains/tron/protobuf.hpp"
#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;

namespace {

enum class Kind { kAddress, kInt, kHex, kText, kResource, kBool };
struct ParameterField {
  uint32_t number;
  const char* name;
  Kind kind;
};
struct ContractSchema {
  int type;
  const char* name;
  std::vector<ParameterField> fields;
};

// The contract types a Tron policy can be written against, with their parameter messages
// (java-tron core/contract/*.proto). Addresses are base58check (T...), data is hex without
// 0x, resources are BANDWIDTH | ENERGY | TRON_POWER.
const ParameterField kOwner{1, "owner_address", Kind::kAddress};
const std::vector<ContractSchema> kContracts = {
    {1, "TransferContract", {kOwner, {2, "to_address", Kind::kAddress}, {3, "amount", Kind::kInt}}},
    {2,
     "TransferAssetContract",
     {{1, "asset_name", Kind::kText},
      {2, "owner_address", Kind::kAddress},
      {3, "to_address", Kind::kAddress},
      {4, "amount", Kind::kInt}}},
    {13, "WithdrawBalanceContract", {kOwner}},
    {31,
     "TriggerSmartContract",
     {kOwner,
      {2, "contract_address", Kind::kAddress},
      {3, "call_value", Kind::kInt},
      {4, "data", Kind::kHex},
      {5, "call_token_value", Kind::kInt},
      {6, "token_id", Kind::kInt}}},
    {54,
     "FreezeBalanceV2Contract",
     {kOwner, {2, "frozen_balance", Kind::kInt}, {3, "resource", Kind::kResource}}},
    {55,
     "UnfreezeBalanceV2Contract",
     {kOwner, {2, "unfreeze_balance", Kind::kInt}, {3, "resource", Kind::kResource}}},
    {56, "WithdrawExpireUnfreezeContract", {kOwner}},
    {57,
     "DelegateResourceContract",
     {kOwner,
      {2, "resource", Kind::kResource},
      {3, "balance", Kind::kInt},
      {4, "receiver_address", Kind::kAddress},
      {5, "lock", Kind::kBool},
      {6, "lock_period", Kind::kInt}}},
    {58,
     "UnDelegateResourceContract",
     {kOwner,
      {2, "resource", Kind::kResource},
      {3, "balance", Kind::kInt},
      {4, "receiver_address", Kind::kAddress}}},
    {59, "CancelAllUnfreezeV2Contract", {kOwner}},
};
const char* kResources[] = {"BANDWIDTH", "ENERGY", "TRON_POWER"};

std::string tronAddress(const Bytes& b, const std::string& what) {
  if (b.empty()) return "";
  if (b.size() != 21 || b[0] != 0x41)
    throw invalidArgument(what + " is not a Tron address (21 bytes starting 0x41): " + toHex(b));
  return base58CheckEncode(b);
}

// Each field at most once: protobuf would let a later copy win, and a policy must read the
// value the network will.
void requireOnce(std::set<uint32_t>& seen, const ProtoField& f, const std::string& what) {
  if (!seen.insert(f.number).second)
    throw invalidArgument(what + ": field " + std::to_string(f.number) + " appears twice");
}

void requireWireType(const ProtoField& f, bool varint, const std::string& what) {
  if (f.isVarint != varint)
    throw invalidArgument(what + ": field " + std::to_string(f.number) + " must be " +
                          (varint ? "a varint" : "length-delimited"));
}

json::Object parameterFields(const ContractSchema& schema, const Bytes& value,
                             const std::string& what) {
  json::Object out = json::object();
  for (const auto& f : schema.fields) {  // proto3 defaults for what is absent
    switch (f.kind) {
      case Kind::kInt:
        out->set(f.name, intFact("0"));
        break;
      case Kind::kResource:
        out->set(f.name, std::string(kResources[0]));
        break;
      case Kind::kBool:
        out->set(f.name, false);
        break;
      default:
        out->set(f.name, std::string());
    }
  }
  std::set<uint32_t> seen;
  for (const auto& field : parseProtoFields(value, what)) {
    auto spec = std::find_if(schema.fields.begin(), schema.fields.end(),
                             [&](const ParameterField& p) { return p.number == field.number; });
    if (spec == schema.fields.end())
      throw invalidArgument(what + ": " + schema.name + " has no field " +
                            std::to_string(field.number) + " this gateway can show to policies");
    requireOnce(seen, field, what);
    std::string name = what + "." + spec->name;
    bool varint =
        spec->kind == Kind::kInt || spec->kind == Kind::kResource || spec->kind == Kind::kBool;
    requireWireType(field, varint, what);
    switch (spec->kind) {
      case Kind::kAddress:
        out->set(spec->name, tronAddress(field.bytes, name));
        break;
      case Kind::kInt:
        out->set(spec->name, intFact(std::to_string(static_cast<int64_t>(field.varint))));
        break;
      case Kind::kHex:
        out->set(spec->name, toHex(field.bytes));
        break;
      case Kind::kText:
        if (!std::all_of(field.bytes.begin(), field.bytes.end(),
                         [](uint8_t c) { return c >= 0x20 && c < 0x7f; }))
          throw invalidArgument(name + " is not printable text");
        out->set(spec->name, toString(field.bytes));
        break;
      case Kind::kResource:
        if (field.varint > 2)
          throw invalidArgument(name + ": resource " + std::to_string(field.varint) +
                                " is not BANDWIDTH (0), ENERGY (1) or TRON_POWER (2)");
        out->set(spec->name, std::string(kResources[field.varint]));
        break;
      case Kind::kBool:
        if (field.varint > 1) throw invalidArgument(name + " is not a bool");
        out->set(spec->name, field.varint == 1);
        break;
    }
  }
  return out;
}

TronContract parseContract(const Bytes& bytes, const std::string& what) {
  std::optional<uint64_t> type;
  std::optional<Bytes> any;
  TronContract c;
  std::set<uint32_t> seen;
  for (const auto& f : parseProtoFields(bytes, what)) {
    requireOnce(seen, f, what);
    if (f.number == 1) {
      requireWireType(f, true, what);
      type = f.varint;
    } else if (f.number == 2) {
      requireWireType(f, false, what);
      any = f.bytes;
    } else if (f.number == 5) {
      requireWireType(f, true, what);
      c.permissionId = static_cast<int32_t>(f.varint);
    } else {
      throw invalidArgument(what + ": field " + std::to_string(f.number) +
                            " (provider or ContractName) is not supported");
    }
  }
  uint64_t typeNumber = type.value_or(0);  // proto3: absent is AccountCreateContract (0)
  auto schema = std::find_if(kContracts.begin(), kContracts.end(), [&](const ContractSchema& s) {
    return static_cast<uint64_t>(s.type) == typeNumber;
  });
  if (schema == kContracts.end())
    throw invalidArgument(what + ": contract type " + std::to_string(typeNumber) +
                          " is not one this gateway signs (TransferContract, "
                          "TransferAssetContract, TriggerSmartContract, staking and delegation)");
  c.type = schema->name;
  if (!any) throw invalidArgument(what + ": the contract has no parameter");
  std::string typeUrl;
  Bytes value;
  for (const auto& f : parseProtoFields(*any, what + ".parameter")) {
    requireWireType(f, false, what + ".parameter");
    if (f.number == 1)
      typeUrl = toString(f.bytes);
    else if (f.number == 2)
      value = f.bytes;
    else
      throw invalidArgument(what + ".parameter: field " + std::to_string(f.number) +
                            " is not part of a google.protobuf.Any");
  }
  std::string expected = std::string("type.googleapis.com/protocol.") + schema->name;
  if (typeUrl != expected)
    throw invalidArgument(what + ".parameter: type_url \"" + typeUrl + "\" does not match type " +
                          schema->name + " (expected \"" + expected + "\")");
  c.fields = parameterFields(*schema, value, what + "." + schema->name);
  return c;
}

// Transaction.raw's scalar fields TronWeb writes (contracts, field 11, are read apart).
const std::pair<uint32_t, Bytes TronTransaction::*> kRawBytes[] = {
    {1, &TronTransaction::refBlockBytes},
    {4, &TronTransaction::refBlockHash},
    {10, &TronTransaction::memo}};
const std::pair<uint32_t, int64_t TronTransaction::*> kRawInts[] = {
    {3, &TronTransaction::refBlockNum},
    {8, &TronTransaction::expiration},
    {14, &TronTransaction::timestamp},
    {18, &TronTransaction::feeLimit}};

}  // namespace

TronTransaction parseTronTransaction(const Bytes& raw, const std::string& field) {
  TronTransaction tx;
  tx.raw = raw;
  std::set<uint32_t> seen;
  for (const auto& f : parseProtoFields(raw, field)) {
    if (f.number == 11) {
      requireWireType(f, false, field);
      tx.contracts.push_back(parseContract(f.bytes, field + ".contract"));
      continue;
    }
    requireOnce(seen, f, field);
    auto bytes = std::find_if(std::begin(kRawBytes), std::end(kRawBytes),
                              [&](const auto& e) { return e.first == f.number; });
    auto ints = std::find_if(std::begin(kRawInts), std::end(kRawInts),
                             [&](const auto& e) { return e.first == f.number; });
    if (bytes != std::end(kRawBytes)) {
      requireWireType(f, false, field);
      tx.*(bytes->second) = f.bytes;
    } else if (ints != std::end(kRawInts)) {
      requireWireType(f, true, field);
      tx.*(ints->second) = static_cast<int64_t>(f.varint);
    } else {
      throw invalidArgument(field + ": Transaction.raw field " + std::to_string(f.number) +
                            (f.number == 9 || f.number == 12 ? " (auths or scripts)" : "") +
                            " is not supported");
    }
  }
  if (tx.contracts.size() != 1)
    throw invalidArgument(field + ": a Tron transaction carries exactly one contract, this one " +
                          std::to_string(tx.contracts.size()));
  return tx;
}

Bytes tronSignedTransaction(const TronTransaction& tx, const Bytes& signature65) {
  Bytes out;
  appendProtoBytes(out, 1, tx.raw);
  appendProtoBytes(out, 2, signature65);
  return out;
}

json::Object tronTxFact(const TronTransaction& tx) {
  json::Object fact = json::object();
  fact->set("ref_block_bytes", toHex(tx.refBlockBytes));
  fact->set("ref_block_num", intFact(std::to_string(tx.refBlockNum)));
  fact->set("ref_block_hash", toHex(tx.refBlockHash));
  fact->set("expiration", intFact(std::to_string(tx.expiration)));
  fact->set("timestamp", intFact(std::to_string(tx.timestamp)));
  fact->set("fee_limit", intFact(std::to_string(tx.feeLimit)));
  fact->set("data", toHex(tx.memo));
  json::Array contracts = json::array();
  for (const auto& c : tx.contracts) {
    json::Object o = json::object();
    o->set("type", c.type);
    o->set("permission_id", intFact(std::to_string(c.permissionId)));
    for (const auto& [k, v] : *c.fields) o->set(k, v);
    contracts->add(o);
  }
  fact->set("contract", contracts);
  return fact;
}

}  // namespace signing
