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
const std::string kParams = "parameters";
constexpr size_t kMaxCalls = 50;

Bytes addressParam(const std::string& text, const std::string& field) {
  auto b = text.rfind("0x", 0) == 0 ? fromHex(text) : std::nullopt;
  if (!b || b->size() != 20)
    throw invalidArgument("invalid field " + field + ": \"" + text + "\" is not a 0x address");
  return *b;
}

std::optional<std::string> optionalText(const json::Object& o, const std::string& key) {
  auto v = json::optionalString(o, key, kParams);
  return v && !v->empty() ? v : std::nullopt;
}

// A decimal (or 0x) number of at most `bits`, kept as the client wrote it after checking.
void checkNumber(const json::Object& p, const std::string& key, int bits, json::Object& out) {
  auto text = optionalText(p, key);
  if (!text) return;
  auto small = parseU128(*text);
  bool fits = bits <= 64    ? small && *small <= UINT64_MAX
              : bits <= 128 ? small.has_value()
                            : parseU256(*text).has_value();
  if (!fits)
    throw invalidArgument("invalid field parameters." + key + ": \"" + *text +
                          "\" is not a number of at most " + std::to_string(bits) + " bits");
  out->set(key, *text);
}

json::Object callOf(const json::Object& c, const std::string& field) {
  json::Object out = json::object();
  std::string to = json::requireString(c, "to", field);
  out->set("to", "0x" + toHex(addressParam(to, field + ".to")));
  std::string value = json::optionalString(c, "value", field).value_or("0");
  if (value.empty()) value = "0";
  auto v = parseU256(value);
  if (!v)
    throw invalidArgument("invalid field " + field + ".value: \"" + value +
                          "\" is not an amount of wei");
  out->set("value", "0x" + toHex(*v));
  std::string data = json::optionalString(c, "data", field).value_or("0x");
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
}  // namespace

json::Object Broadcast::ethSendTransaction(ActivityContext& ctx, const json::Object& p) {
  std::string caip2 = requireChain(*this, p, false);
  std::string from = json::requireString(p, "from", kParams);
  json::Object request = json::object();
  request->set("from", asciiLower(from));
  request->set("key", requireEthKey(ctx, from));
  json::Array calls = json::array();
  if (ctx.activityVersion() >= 2) {
    json::Array given = json::optionalArray(p, "calls", kParams);
    if (!given || given->size() == 0 || given->size() > kMaxCalls)
      throw invalidArgument(
          "invalid field parameters.calls: " + std::to_string(given ? given->size() : 0) +
          " calls (from 1 to " + std::to_string(kMaxCalls) + ")");
    for (unsigned i = 0; i < given->size(); ++i) {
      std::string field = "parameters.calls[" + std::to_string(i) + "]";
      json::Object c = given->getObject(i);
      if (!c) throw invalidArgument("invalid field " + field + ": an object");
      calls->add(callOf(c, field));
    }
  } else {
    calls->add(callOf(p, "parameters"));
  }
  request->set("calls", calls);
  checkNumber(p, "nonce", 64, request);
  checkNumber(p, "gasLimit", 64, request);
  checkNumber(p, "maxFeePerGas", 128, request);
  checkNumber(p, "maxPriorityFeePerGas", 128, request);
  checkNumber(p, "deadline", 64, request);
  checkNumber(p, "gasStationNonce", 256, request);

  bool sponsored = json::optionalBool(p, "sponsor", kParams, false);
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

json::Object Broadcast::ethUndelegate(ActivityContext& ctx, const json::Object& p) {
  std::string caip2 = requireChain(*this, p, false);
  std::string from = json::requireString(p, "from", kParams);
  json::Object request = json::object();
  request->set("from", asciiLower(from));
  request->set("key", requireEthKey(ctx, from));
  request->set("calls", json::array());
  checkNumber(p, "nonce", 64, request);
  checkNumber(p, "gasLimit", 64, request);
  checkNumber(p, "maxFeePerGas", 128, request);
  checkNumber(p, "maxPriorityFeePerGas", 128, request);
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
json::Object Broadcast::ethSendRawTransaction(ActivityContext& ctx, const json::Object& p) {
  std::string caip2 = requireChain(*this, p, false);
  std::string text = json::requireString(p, "signedTransaction", kParams);
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
  std::string caip2 = requireChain(*this, body, false);
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
