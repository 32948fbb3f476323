#include "chains/tempo/tempo_transaction.hpp"

#include "chains/ethereum/rlp_checks.hpp"
#include "chains/recoverable_signature.hpp"
#include "signet/error.hpp"
#include "signet/plugin.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr uint8_t kTempoType = 0x76;
constexpr size_t kUnsignedFields = 13;
enum Index {
  kChainId,
  kMaxPriorityFee,
  kMaxFee,
  kGasLimit,
  kCalls,
  kAccessList,
  kNonceKey,
  kNonce,
  kValidBefore,
  kValidAfter,
  kFeeToken,
  kFeePayer,
  kAuthorizations
};

// The integer fields, named as policies read them, with their size limits.
struct UintField {
  Index index;
  const char* name;
  size_t maxBytes;
};
// clang-format off
const UintField kUintFields[] = {
    {kChainId, "chain_id", 32},
    {kMaxPriorityFee, "max_priority_fee_per_gas", 32},
    {kMaxFee, "max_fee_per_gas", 32},
    {kGasLimit, "gas_limit", 8},
    {kNonceKey, "nonce_key", 32},
    {kNonce, "nonce", 8},
    {kValidBefore, "valid_before", 8},
    {kValidAfter, "valid_after", 8}};
// clang-format on

std::string hex0x(const Bytes& b) {
  return "0x" + toHex(b);
}
}  // namespace

TempoTransaction parseTempoTransaction(const Bytes& raw, const std::string& path) {
  RlpChecker check(path);
  if (raw.empty() || raw[0] != kTempoType)
    check.fail("a Tempo transaction starts with type byte 0x76");
  RlpItem top = rlpDecode(raw.data() + 1, raw.size() - 1, path);
  const auto& f = check.list(top, "the transaction");
  if (f.size() > kUnsignedFields)
    check.fail("has " + std::to_string(f.size()) +
               " fields: it is already signed or carries a key authorization, which this "
               "gateway does not sign (policies cannot see what an access key may do)");
  if (f.size() != kUnsignedFields)
    check.fail("a Tempo transaction has 13 unsigned fields, this one " + std::to_string(f.size()));
  for (const auto& u : kUintFields) check.uint(f[u.index], u.name, u.maxBytes);
  const auto& calls = check.list(f[kCalls], "calls");
  if (calls.empty()) check.fail("a Tempo transaction needs at least one call");
  for (const auto& call : calls) {
    const auto& c = check.list(call, "a call");
    if (c.size() != 3) check.fail("a call is not [to, value, input]");
    check.string(c[0], "a call's to");
    if (!c[0].bytes.empty() && c[0].bytes.size() != 20)
      check.fail("a call's to has " + std::to_string(c[0].bytes.size()) + " bytes, not 20");
    check.uint(c[1], "a call's value", 32);
    check.string(c[2], "a call's input");
  }
  check.accessList(f[kAccessList], "access_list");
  check.string(f[kFeeToken], "fee_token");
  if (!f[kFeeToken].bytes.empty() && f[kFeeToken].bytes.size() != 20)
    check.fail("fee_token has " + std::to_string(f[kFeeToken].bytes.size()) + " bytes, not 20");
  // Empty, the 0x00 "a fee payer will sign" marker, or the sender's address; a list is a fee
  // payer's signature over a transaction that someone has already completed.
  if (f[kFeePayer].isList)
    check.fail("the fee payer has already signed; sign the sender's part first");
  const Bytes& payer = f[kFeePayer].bytes;
  if (!(payer.empty() || payer == Bytes{0x00} || payer.size() == 20))
    check.fail("fee_payer is neither empty, the 0x00 marker nor an address");
  if (!check.list(f[kAuthorizations], "authorization_list").empty())
    check.fail("authorization_list is not empty: delegations are not signed by this gateway");
  return {f, raw};
}

crypto::Digest tempoSigningDigest(const TempoTransaction& tx) {
  return crypto::keccak256(tx.raw.data(), tx.raw.size());
}

Bytes tempoSignedTransaction(const TempoTransaction& tx, const crypto::RecoverableSignature& sig) {
  std::vector<Bytes> items;
  for (const auto& f : tx.fields) items.push_back(f.encoded);
  items.push_back(rlpEncodeString(rsv27(sig)));
  Bytes out{kTempoType};
  Bytes body = rlpEncodeList(items);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

Object tempoTxFact(const TempoTransaction& tx, const std::string& fromAddress) {
  const auto& f = tx.fields;
  Object fact = json::object();
  fact->set("from", fromAddress);
  for (const auto& u : kUintFields) fact->set(u.name, uintFact(uintDecimal(f[u.index].bytes)));
  fact->set("fee_token", f[kFeeToken].bytes.empty() ? "" : hex0x(f[kFeeToken].bytes));
  json::Array calls = json::array();
  for (const auto& call : f[kCalls].items) {
    Object c = json::object();
    const Bytes& input = call.items[2].bytes;
    c->set("to", call.items[0].bytes.empty() ? "" : hex0x(call.items[0].bytes));
    c->set("value", uintFact(uintDecimal(call.items[1].bytes)));
    c->set("input", hex0x(input));
    c->set("function_signature",
           input.size() >= 4 ? hex0x(Bytes(input.begin(), input.begin() + 4)) : "");
    calls->add(c);
  }
  fact->set("calls", calls);
  return fact;
}

}  // namespace signing
