#include "eth_node.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
std::string hex0x(const Bytes& b) {
  return "0x" + toHex(b);
}

Uint128 quantity(const Poco::Dynamic::Var& v, const std::string& what) {
  auto q = v.isString() ? parseU128(v.convert<std::string>()) : std::nullopt;
  if (!q) throw Error(Code::kUnavailable, "the node answered " + what + " with no quantity");
  return *q;
}

uint64_t small(const Poco::Dynamic::Var& v, const std::string& what) {
  Uint128 q = quantity(v, what);
  if (q > UINT64_MAX) throw Error(Code::kUnavailable, "the node answered " + what + " too large");
  return static_cast<uint64_t>(q);
}

Bytes bytesOf(const Poco::Dynamic::Var& v, const std::string& what) {
  auto b = v.isString() ? fromHex(v.convert<std::string>()) : std::nullopt;
  if (!b) throw Error(Code::kUnavailable, "the node answered " + what + " with no hex data");
  return *b;
}

json::Object callObject(const CallRequest& c) {
  json::Object o = json::object();
  o->set("from", hex0x(c.from));
  o->set("to", hex0x(c.to));
  o->set("value", toQuantity(c.value));
  o->set("data", hex0x(c.data));
  if (c.gas) o->set("gas", toQuantity(c.gas));
  if (!c.authorizations.empty()) {
    json::Array list = json::array();
    for (const auto& a : c.authorizations) {
      json::Object e = json::object();
      e->set("chainId", toQuantity(a.chainId));
      e->set("address", hex0x(a.address));
      e->set("nonce", toQuantity(a.nonce));
      e->set("yParity", toQuantity(static_cast<Uint128>(a.signature.recoveryId)));
      e->set("r", toQuantity(Bytes(a.signature.sig.r.begin(), a.signature.sig.r.end())));
      e->set("s", toQuantity(Bytes(a.signature.sig.s.begin(), a.signature.sig.s.end())));
      list->add(e);
    }
    o->set("authorizationList", list);
  }
  return o;
}
}  // namespace

uint64_t EthNode::chainId() const {
  return small(rpc_.call("eth_chainId", json::array()), "eth_chainId");
}

uint64_t EthNode::nextNonce(const Bytes& address) const {
  return small(rpc_.call("eth_getTransactionCount", params({hex0x(address), "pending"})),
               "eth_getTransactionCount");
}

Bytes EthNode::code(const Bytes& address) const {
  return bytesOf(rpc_.call("eth_getCode", params({hex0x(address), "latest"})), "eth_getCode");
}

Fees EthNode::suggestedFees() const {
  Fees f;
  try {
    f.maxPriorityFeePerGas =
        quantity(rpc_.call("eth_maxPriorityFeePerGas", json::array()), "eth_maxPriorityFeePerGas");
  } catch (const RpcError&) {
    f.maxPriorityFeePerGas = 1'000'000'000;  // a node without the method: 1 gwei
  }
  auto block = rpc_.call("eth_getBlockByNumber", params({"latest", false}));
  json::Object b = objectOf(block);
  Uint128 base =
      b && b->has("baseFeePerGas") ? quantity(b->get("baseFeePerGas"), "baseFeePerGas") : 0;
  f.maxFeePerGas = 2 * base + f.maxPriorityFeePerGas;
  return f;
}

uint64_t EthNode::estimateGas(const CallRequest& c) const {
  return small(rpc_.call("eth_estimateGas", params({callObject(c)})), "eth_estimateGas");
}

Bytes EthNode::call(const CallRequest& c, const std::string& block) const {
  return bytesOf(rpc_.call("eth_call", params({callObject(c), block})), "eth_call");
}

std::string EthNode::sendRawTransaction(const Bytes& signedTx) const {
  auto hash = rpc_.call("eth_sendRawTransaction", params({hex0x(signedTx)}));
  if (!hash.isString())
    throw Error(Code::kUnavailable, "the node answered eth_sendRawTransaction with no hash");
  return asciiLower(hash.convert<std::string>());
}

std::optional<Receipt> EthNode::receipt(const std::string& hash) const {
  auto r = rpc_.call("eth_getTransactionReceipt", params({hash}));
  if (r.isEmpty() || r.type() != typeid(json::Object)) return std::nullopt;
  json::Object o = r.extract<json::Object>();
  if (!o->has("blockNumber") || o->get("blockNumber").isEmpty()) return std::nullopt;
  Receipt out;
  out.success = o->optValue<std::string>("status", "0x0") == "0x1";
  out.blockNumber = small(o->get("blockNumber"), "blockNumber");
  out.gasUsed = small(o->get("gasUsed"), "gasUsed");
  out.effectiveGasPrice =
      o->has("effectiveGasPrice") ? quantity(o->get("effectiveGasPrice"), "effectiveGasPrice") : 0;
  return out;
}

Bytes revertDataOf(const RpcError& e) {
  Poco::Dynamic::Var d = e.data();
  if (d.type() == typeid(json::Object)) d = d.extract<json::Object>()->get("data");
  if (d.isString())
    if (auto b = fromHex(d.convert<std::string>())) return *b;
  return {};
}

}  // namespace signing::broadcast
