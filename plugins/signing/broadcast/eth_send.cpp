// The Ethereum activities and queries of broadcast.hpp: each checks its request, names the
// field of anything wrong, and records the send for the worker.
#include "batch_executor.hpp"
#include "broadcast.hpp"
#include "gas_usage.hpp"
#include "keys/addresses.hpp"
#include "keys/key_material.hpp"
#include "sponsor.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr size_t kMaxCalls = 50;

Bytes addressParam(const std::string& text, const std::string& field) {
  auto b = text.rfind("0x", 0) == 0 ? fromHex(text) : std::nullopt;
  if (!b || b->size() != 20)
    throw invalidArgument("invalid field " + field + ": \"" + text + "\" is not a 0x address");
  return *b;
}

// A decimal (or 0x) number of at most `bits`, parameters.<key>, kept as the client wrote it
// after checking; absent or empty, it is left for the worker to fill.
void checkNumber(const std::optional<std::string>& text, const std::string& key, int bits,
                 json::Object& out) {
  if (!text || text->empty()) return;
  auto small = parseU128(*text);
  bool fits = bits <= 64    ? small && *small <= UINT64_MAX
              : bits <= 128 ? small.has_value()
                            : parseU256(*text).has_value();
  if (!fits)
    throw invalidArgument("invalid field parameters." + key + ": \"" + *text +
                          "\" is not a number of at most " + std::to_string(bits) + " bits");
  out->set(key, *text);
}

json::Object callOf(const EthCallParameters& c, const std::string& field) {
  json::Object out = json::object();
  out->set("to", "0x" + toHex(addressParam(c.to, field + ".to")));
  std::string value = c.value.value_or("0");
  if (value.empty()) value = "0";
  auto v = parseU256(value);
  if (!v)
    throw invalidArgument("invalid field " + field + ".value: \"" + value +
                          "\" is not an amount of wei");
  out->set("value", "0x" + toHex(*v));
  std::string data = c.data.value_or("0x");
  auto d = fromHex(data.empty() ? "0x" : data);
  if (!d) throw invalidArgument("invalid field " + field + ".data: not hex");
  out->set("data", "0x" + toHex(*d));
  return out;
}

// The key behind `from`, which must be an Ethereum account of the organization.
json::Object requireEthKey(RequestContext& ctx, const std::string& from) {
  addressParam(from, "parameters.from");
  auto target = locateSignWith(ctx, from);
  if (!target || target->curve != crypto::Curve::kSecp256k1 || target->address.empty())
    throw invalidArgument("invalid field parameters.from: " + from +
                          " is not an Ethereum address of organization " + ctx.organizationId());
  json::Object key = json::object();
  key->set("walletAccount", target->walletAccount);
  key->set("id", target->id);
  key->set("addressFormat", target->addressFormat);
  return key;
}

json::Object statusResult(const std::string& id) {
  json::Object r = json::object();
  r->set("sendTransactionStatusId", id);
  return r;
}

using SendP = EthSendTransactionParameters;
using UndelegateP = EthUndelegateParameters;
// V1's call is at the top level, V2's are in calls: each version's shape reads only its own.
const Shape<EthCallParameters> kEthCall = {field("to", &EthCallParameters::to),
                                           field("value", &EthCallParameters::value),
                                           field("data", &EthCallParameters::data)};
}  // namespace

const Shape<SendP> kEthSendTransactionV1 = {
    field("from", &SendP::from),
    field("caip2", &SendP::caip2),
    field("to", &SendP::to, {.required = true}),
    field("value", &SendP::value),
    field("data", &SendP::data),
    field("nonce", &SendP::nonce),
    field("gasLimit", &SendP::gasLimit),
    field("maxFeePerGas", &SendP::maxFeePerGas),
    field("maxPriorityFeePerGas", &SendP::maxPriorityFeePerGas),
    field("deadline", &SendP::deadline),
    field("gasStationNonce", &SendP::gasStationNonce),
    field("sponsor", &SendP::sponsor)};
const Shape<SendP> kEthSendTransactionV2 = {
    field("from", &SendP::from),
    field("caip2", &SendP::caip2),
    field("calls", &SendP::calls, kEthCall, {.required = true}),
    field("nonce", &SendP::nonce),
    field("gasLimit", &SendP::gasLimit),
    field("maxFeePerGas", &SendP::maxFeePerGas),
    field("maxPriorityFeePerGas", &SendP::maxPriorityFeePerGas),
    field("deadline", &SendP::deadline),
    field("gasStationNonce", &SendP::gasStationNonce),
    field("sponsor", &SendP::sponsor)};
const Shape<UndelegateP> kEthUndelegate = {
    field("from", &UndelegateP::from),
    field("caip2", &UndelegateP::caip2),
    field("nonce", &UndelegateP::nonce),
    field("gasLimit", &UndelegateP::gasLimit),
    field("maxFeePerGas", &UndelegateP::maxFeePerGas),
    field("maxPriorityFeePerGas", &UndelegateP::maxPriorityFeePerGas)};
const Shape<EthSendRawTransactionParameters> kEthSendRawTransaction = {
    field("signedTransaction", &EthSendRawTransactionParameters::signedTransaction),
    field("caip2", &EthSendRawTransactionParameters::caip2)};

json::Object Broadcast::ethSendTransaction(ActivityContext& ctx,
                                           const EthSendTransactionParameters& p) {
  std::string caip2 = requireChain(*this, p.caip2, false);
  const std::string& from = p.from;
  json::Object request = json::object();
  request->set("from", asciiLower(from));
  request->set("key", requireEthKey(ctx, from));
  json::Array calls = json::array();
  if (ctx.activityVersion() >= 2) {
    // V2's shape requires calls; its count is checked here.
    const size_t given = p.calls ? p.calls->size() : 0;
    if (given == 0 || given > kMaxCalls)
      throw invalidArgument("invalid field parameters.calls: " + std::to_string(given) +
                            " calls (from 1 to " + std::to_string(kMaxCalls) + ")");
    for (size_t i = 0; i < given; ++i)
      calls->add(callOf((*p.calls)[i], "parameters.calls[" + std::to_string(i) + "]"));
  } else {
    // V1's shape requires to.
    calls->add(callOf({p.to.value_or(""), p.value, p.data}, "parameters"));
  }
  request->set("calls", calls);
  checkNumber(p.nonce, "nonce", 64, request);
  checkNumber(p.gasLimit, "gasLimit", 64, request);
  checkNumber(p.maxFeePerGas, "maxFeePerGas", 128, request);
  checkNumber(p.maxPriorityFeePerGas, "maxPriorityFeePerGas", 128, request);
  checkNumber(p.deadline, "deadline", 64, request);
  checkNumber(p.gasStationNonce, "gasStationNonce", 256, request);

  bool sponsored = p.sponsor.value_or(false);
  SendKind kind = sponsored           ? SendKind::kEthSponsored
                  : calls->size() > 1 ? SendKind::kEthBatch
                                      : SendKind::kEthSingle;
  if (kind != SendKind::kEthSingle && !settings_.batchExecutor.count(caip2))
    throw failedPrecondition("batches and sponsored sends on " + caip2 +
                             " need the batch executor's address there "
                             "(plugins.settings.signing.broadcast.batchExecutor)");
  Send s;
  s.id = ctx.newId();
  s.organizationId = ctx.organizationId();
  s.billingOrganizationId = billingOrganizationOf(ctx, ctx.organizationId());
  if (sponsored) {
    if (!sponsorAddress(ctx.db(), "eip155"))
      throw failedPrecondition(
          "this gateway has no eip155 sponsor key (signet signing "
          "create-sponsor --family eip155)");
    if (!prices_.configured(caip2))
      throw failedPrecondition("no USD price is configured for " + caip2 +
                               " (plugins.settings.signing.broadcast.usdPrice or priceSource)");
    requireSponsorship(ctx.db(), s.organizationId, s.billingOrganizationId, 0, ctx.nowMs());
  }
  s.caip2 = caip2;
  s.kind = kind;
  s.request = request;
  insertSend(ctx.db(), s, ctx.nowMs());
  wake();
  return statusResult(s.id);
}

json::Object Broadcast::ethUndelegate(ActivityContext& ctx, const EthUndelegateParameters& p) {
  std::string caip2 = requireChain(*this, p.caip2, false);
  const std::string& from = p.from;
  json::Object request = json::object();
  request->set("from", asciiLower(from));
  request->set("key", requireEthKey(ctx, from));
  request->set("calls", json::array());
  checkNumber(p.nonce, "nonce", 64, request);
  checkNumber(p.gasLimit, "gasLimit", 64, request);
  checkNumber(p.maxFeePerGas, "maxFeePerGas", 128, request);
  checkNumber(p.maxPriorityFeePerGas, "maxPriorityFeePerGas", 128, request);
  Send s;
  s.id = ctx.newId();
  s.organizationId = ctx.organizationId();
  s.billingOrganizationId = billingOrganizationOf(ctx, ctx.organizationId());
  s.caip2 = caip2;
  s.kind = SendKind::kEthUndelegate;
  s.request = request;
  insertSend(ctx.db(), s, ctx.nowMs());
  wake();
  return statusResult(s.id);
}

// Already signed elsewhere: sent once the activity is committed (outside the write lock); a
// node that refuses it fails the activity with the node's words.
json::Object Broadcast::ethSendRawTransaction(ActivityContext& ctx,
                                              const EthSendRawTransactionParameters& p) {
  std::string caip2 = requireChain(*this, p.caip2, false);
  const std::string& text = p.signedTransaction;
  auto raw = fromHex(text);
  if (!raw || raw->empty())
    throw invalidArgument("invalid field parameters.signedTransaction: not hex");
  auto digest = crypto::keccak256(raw->data(), raw->size());
  std::string hash = "0x" + toHex(digest.data(), digest.size());
  Bytes bytes = *raw;
  ctx.afterCommit(
      [this, caip2, bytes] {
        try {
          ethNode(caip2).sendRawTransaction(bytes);
        } catch (const RpcError& e) {
          throw failedPrecondition("the node refused the transaction: " + e.rpcMessage());
        }
      },
      [](ActivityContext&) {});
  json::Object r = json::object();
  r->set("transactionHash", hash);
  return r;
}

json::Object Broadcast::getNonces(RequestContext&, const json::Object& body) {
  std::string caip2 = requireChain(*this, json::requireString(body, "caip2", "parameters"), false);
  Bytes address = addressParam(json::requireString(body, "address", ""), "address");
  EthNode node = ethNode(caip2);
  json::Object r = json::object();
  if (json::optionalBool(body, "nonce", "", false))
    r->set("nonce", std::to_string(node.nextNonce(address)));
  if (json::optionalBool(body, "gasStationNonce", "", false)) {
    // Only an account delegated to this chain's batch executor has an executor nonce.
    std::string nonce = "0";
    auto executor = settings_.batchExecutor.find(caip2);
    Bytes code = node.code(address);
    if (executor != settings_.batchExecutor.end() && code.size() == 23 && code[0] == 0xef &&
        code[1] == 0x01 && code[2] == 0x00 &&
        "0x" + toHex(Bytes(code.begin() + 3, code.end())) == executor->second) {
      Bytes word =
          node.call({.from = address, .to = address, .value = {}, .data = nonceCalldata()});
      auto n = parseU128("0x" + toHex(word));
      if (!n) throw Error(Code::kUnavailable, "the batch executor answered nonce() with no number");
      nonce = toDecimal(*n);
    }
    r->set("gasStationNonce", nonce);
  }
  return r;
}

}  // namespace signing::broadcast
