// One step of an Ethereum send (broadcast.hpp): sign what the activity recorded, send it, and
// follow it to its receipt.
#include "batch_executor.hpp"
#include "broadcast.hpp"
#include "gas_usage.hpp"
#include "keys/key_material.hpp"
#include "revert.hpp"
#include "send_step.hpp"
#include "sponsor.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
// The executor's own delegation designator: 0xef0100 ‖ address (EIP-7702).
bool delegatedTo(const Bytes& code, const Bytes& executor) {
  return code.size() == 23 && code[0] == 0xef && code[1] == 0x01 && code[2] == 0x00 &&
         std::equal(executor.begin(), executor.end(), code.begin() + 3);
}

Bytes hexBytes(const std::string& text) {
  return fromHex(text).value_or(Bytes{});
}

std::optional<std::string> given(const json::Object& request, const char* key) {
  auto v = request->optValue<std::string>(key, "");
  return v.empty() ? std::nullopt : std::optional(v);
}

Bytes word(uint64_t v) {
  Bytes w(32, 0);
  for (int i = 0; i < 8; ++i) w[31 - i] = static_cast<uint8_t>(v >> (8 * i));
  return w;
}

// r ‖ s ‖ v with v = 27 + y, as ecrecover takes it.
Bytes rsv(const crypto::RecoverableSignature& sig) {
  Bytes out(sig.sig.r.begin(), sig.sig.r.end());
  out.insert(out.end(), sig.sig.s.begin(), sig.sig.s.end());
  out.push_back(static_cast<uint8_t>(27 + sig.recoveryId));
  return out;
}

json::Object txErrorJson(const std::string& message, const json::Array& revertChain = nullptr) {
  json::Object e = json::object();
  e->set("message", message);
  if (revertChain) {
    e->set("revertChain", revertChain);
    json::Object eth = json::object();
    eth->set("revertChain", revertChain);
    e->set("eth", eth);
  }
  return e;
}

json::Object authorizationJson(const Authorization& a) {
  json::Object o = json::object();
  o->set("chainId", static_cast<int64_t>(a.chainId));
  o->set("address", "0x" + toHex(a.address));
  o->set("nonce", static_cast<int64_t>(a.nonce));
  o->set("yParity", a.signature.recoveryId);
  o->set("r", toHex(a.signature.sig.r.data(), 32));
  o->set("s", toHex(a.signature.sig.s.data(), 32));
  return o;
}

Authorization authorizationFrom(const json::Object& o) {
  Authorization a;
  a.chainId = static_cast<uint64_t>(o->getValue<int64_t>("chainId"));
  a.address = hexBytes(o->getValue<std::string>("address"));
  a.nonce = static_cast<uint64_t>(o->getValue<int64_t>("nonce"));
  a.signature.recoveryId = o->getValue<int>("yParity");
  Bytes r = hexBytes(o->getValue<std::string>("r")), s = hexBytes(o->getValue<std::string>("s"));
  std::copy(r.begin(), r.end(), a.signature.sig.r.begin());
  std::copy(s.begin(), s.end(), a.signature.sig.s.begin());
  return a;
}

// What the worker does with a send: the node, the store, the clock, and the outcome.
class EthStep : public SendStep {
 public:
  EthStep(Broadcast& b, WorkerContext& w, Send& s) : SendStep(b, w, s) {}

 private:
  uint64_t chainId() const { return std::stoull(s_.caip2.substr(7)); }

  SigningKey userKey() {
    json::Object key = s_.request->getObject("key");
    SignWithTarget target;
    target.walletAccount = key->getValue<bool>("walletAccount");
    target.id = key->getValue<std::string>("id");
    target.curve = crypto::Curve::kSecp256k1;
    target.addressFormat = key->optValue<std::string>("addressFormat", "");
    std::optional<SigningKey> out;
    w_.read([&](RequestContext& ctx) { out.emplace(openSignWith(ctx, target)); });
    return std::move(*out);
  }

  Sponsor sponsorKey() {
    std::optional<Sponsor> out;
    w_.read([&](RequestContext& ctx) { out = openSponsor(ctx, "eip155"); });
    if (!out) throw failedPrecondition("this gateway's eip155 sponsor key is gone");
    return std::move(*out);
  }

  std::vector<EthCall> calls() const {
    std::vector<EthCall> out;
    json::Array list = s_.request->getArray("calls");
    for (unsigned i = 0; list && i < list->size(); ++i) {
      json::Object c = list->getObject(i);
      out.push_back({hexBytes(c->getValue<std::string>("to")),
                     hexBytes(c->getValue<std::string>("value")),
                     hexBytes(c->getValue<std::string>("data"))});
    }
    return out;
  }

  // Builds and signs the transaction, and stores it (with the sender's next nonce taken) before
  // anything is sent. False when the send failed instead.
  bool sign() override {
    EthNode node = b_.ethNode(s_.caip2);
    const bool sponsored = s_.kind == SendKind::kEthSponsored;
    const bool viaExecutor = sponsored || s_.kind == SendKind::kEthBatch;
    Bytes from = hexBytes(s_.request->getValue<std::string>("from"));
    SigningKey user = userKey();
    std::optional<Sponsor> sponsor;
    if (sponsored) sponsor.emplace(sponsorKey());
    Bytes sender = sponsored ? hexBytes(sponsor->address) : from;

    EthTx tx;
    tx.chainId = chainId();
    std::optional<uint64_t> stored;  // the next nonce this store has handed out, if any
    w_.read([&](RequestContext& ctx) {
      if (auto r = ctx.db().queryOne(
              "SELECT next_nonce FROM signing_send_nonces WHERE caip2 = ? AND address = ?",
              {s_.caip2, "0x" + toHex(sender)}))
        stored = static_cast<uint64_t>(r->i64("next_nonce"));
    });
    // The sponsor's account is the gateway's: its nonce and fees are the gateway's to choose,
    // so that no request can hold its sequence up (the public API: "not used for sponsored
    // transactions").
    auto givenNonce = sponsored ? std::nullopt : given(s_.request, "nonce");
    tx.nonce = givenNonce ? static_cast<uint64_t>(*parseU128(*givenNonce))
                          : std::max(node.nextNonce(sender), stored.value_or(0));
    fillFees(node, tx);

    Bytes executor;
    bool delegated = false;
    if (viaExecutor) {
      executor = hexBytes(b_.settings().batchExecutor.at(s_.caip2));
      delegated = delegatedTo(node.code(from), executor);
    }
    auto authorize = [&](const Bytes& target, uint64_t nonce) {
      Authorization a{tx.chainId, target, nonce, {}};
      a.signature = crypto::signSecp256k1Recoverable(
          user.privateKey, authorizationDigest(a.chainId, a.address, a.nonce));
      tx.authorizations.push_back(a);
    };
    std::vector<EthCall> batch = calls();
    uint64_t deadline = given(s_.request, "deadline")
                            ? static_cast<uint64_t>(*parseU128(*given(s_.request, "deadline")))
                            : static_cast<uint64_t>(w_.nowMs() / 1000 + 3600);
    std::string revertAt;  // where a revert comes from
    switch (s_.kind) {
      case SendKind::kEthSingle:
        tx.to = batch[0].to;
        tx.value = batch[0].value;
        tx.data = batch[0].data;
        revertAt = "0x" + toHex(tx.to);
        break;
      case SendKind::kEthUndelegate:
        tx.to = from;
        tx.value = Bytes(32, 0);
        // The account sends it: its authorization's nonce is the one after the transaction's.
        authorize(Bytes(20, 0), tx.nonce + 1);
        revertAt = "0x" + toHex(from);
        break;
      case SendKind::kEthBatch:
        if (!delegated) authorize(executor, tx.nonce + 1);
        tx.to = from;
        tx.value = Bytes(32, 0);
        tx.data = executeCalldata(batch, word(deadline), {});
        revertAt = "0x" + toHex(from);
        break;
      case SendKind::kEthSponsored: {
        if (!delegated) authorize(executor, node.nextNonce(from));
        Bytes executorNonce(32, 0);
        if (auto n = given(s_.request, "gasStationNonce"))
          executorNonce = *parseU256(*n);
        else if (delegated)
          executorNonce =
              node.call({.from = from, .to = from, .value = {}, .data = nonceCalldata()});
        auto signature = crypto::signSecp256k1Recoverable(
            user.privateKey, batchDigest(tx.chainId, from, batch, executorNonce, word(deadline)));
        tx.to = from;
        tx.value = Bytes(32, 0);
        tx.data = executeCalldata(batch, word(deadline), rsv(signature));
        revertAt = "0x" + toHex(from);
        break;
      }
      default:
        throw internalError("not an Ethereum send");
    }

    CallRequest call{sender, tx.to, tx.value, tx.data, tx.authorizations, 0};
    if (auto gas = given(s_.request, "gasLimit")) {
      tx.gas = static_cast<uint64_t>(*parseU128(*gas));
    } else if (s_.kind == SendKind::kEthUndelegate) {
      tx.gas = 60'000;  // 21,000 and 25,000 for the authorization, with room
    } else {
      try {
        // A quarter more than the estimate: delegation and cold storage make estimates tight,
        // and gas not used is not paid for.
        tx.gas = node.estimateGas(call) * 5 / 4;
      } catch (const RpcError& e) {
        auto chain = revertChain(revertAt, revertDataOf(e));
        fail(revertSummary(chain), txErrorJson(e.rpcMessage(), chain));
        return false;
      }
    }
    if (sponsored) {
      auto price = b_.prices().usdMicros(s_.caip2, w_.nowMs());
      if (!price) throw failedPrecondition("no USD price is configured for " + s_.caip2);
      s_.request->set("priceMicros", toDecimal(*price));
      Uint128 most = usdMicros(static_cast<Uint128>(tx.gas) * tx.maxFeePerGas, *price, 18);
      w_.read([&](RequestContext& ctx) {
        requireSponsorship(ctx.db(), s_.organizationId, s_.billingOrganizationId, most, w_.nowMs());
      });
    }

    auto signature = crypto::signSecp256k1Recoverable(sponsored ? sponsor->key : user.privateKey,
                                                      tx.signingDigest());
    Bytes raw = tx.signedBytes(signature);
    auto hash = crypto::keccak256(raw.data(), raw.size());
    json::Object outer = json::object();
    outer->set("to", "0x" + toHex(tx.to));
    outer->set("value", "0x" + toHex(tx.value));
    outer->set("data", "0x" + toHex(tx.data));
    outer->set("gas", static_cast<int64_t>(tx.gas));
    outer->set("revertAt", revertAt);
    json::Array auths = json::array();
    for (const auto& a : tx.authorizations) auths->add(authorizationJson(a));
    outer->set("authorizations", auths);
    s_.request->set("outer", outer);
    s_.signedTx = toHex(raw);
    s_.txHash = "0x" + toHex(hash.data(), hash.size());
    s_.sender = "0x" + toHex(sender);
    s_.senderNonce = static_cast<int64_t>(tx.nonce);
    // The nonce is taken only if no other gateway on the store took one for this account since
    // it was read (the row unchanged, or still absent); otherwise nothing is stored and the send
    // is signed again with the next one.
    w_.transaction([&](RequestContext& ctx) {
      auto next = static_cast<int64_t>(std::max<uint64_t>(tx.nonce + 1, stored.value_or(0)));
      size_t taken =
          stored ? ctx.db().exec(
                       "UPDATE signing_send_nonces SET next_nonce = ? WHERE caip2 = ? AND "
                       "address = ? AND next_nonce = ?",
                       {next, s_.caip2, s_.sender, static_cast<int64_t>(*stored)})
                 : ctx.db().exec(
                       "INSERT INTO signing_send_nonces (caip2, address, next_nonce) VALUES (?, "
                       "?, ?) ON CONFLICT DO NOTHING",
                       {s_.caip2, s_.sender, next});
      if (taken == 0)
        throw Error(Code::kUnavailable,
                    "another gateway took a nonce of " + s_.sender + " meanwhile; signing again");
      recordSigned(ctx.db(), s_, w_.nowMs());
    });
    return true;
  }

  void fillFees(const EthNode& node, EthTx& tx) {
    const bool sponsored = s_.kind == SendKind::kEthSponsored;
    auto maxFee = sponsored ? std::nullopt : given(s_.request, "maxFeePerGas");
    auto tip = sponsored ? std::nullopt : given(s_.request, "maxPriorityFeePerGas");
    Fees suggested;
    if (!maxFee || !tip) suggested = node.suggestedFees();
    tx.maxPriorityFeePerGas = tip ? *parseU128(*tip) : suggested.maxPriorityFeePerGas;
    tx.maxFeePerGas =
        maxFee ? *parseU128(*maxFee) : std::max(suggested.maxFeePerGas, tx.maxPriorityFeePerGas);
    tx.maxPriorityFeePerGas = std::min(tx.maxPriorityFeePerGas, tx.maxFeePerGas);
  }

  // Sends the stored bytes (again, after a crash: the same transaction, so never twice).
  void send() override {
    EthNode node = b_.ethNode(s_.caip2);
    try {
      node.sendRawTransaction(*fromHex(s_.signedTx));
    } catch (const RpcError& e) {
      // The node has it already (a retry after a lost answer) or has included it.
      std::string m = asciiLower(e.rpcMessage());
      bool known = m.find("already known") != std::string::npos ||
                   m.find("already imported") != std::string::npos ||
                   m.find("known transaction") != std::string::npos;
      if (!known && !node.receipt(s_.txHash)) {
        releaseNonce();
        fail("the node refused the transaction: " + e.rpcMessage(), txErrorJson(e.rpcMessage()));
        return;
      }
    }
    w_.transaction([&](RequestContext& ctx) {
      recordBroadcast(ctx.db(), s_.id, w_.nowMs() + b_.settings().pollIntervalMs, w_.nowMs());
    });
  }

  // A transaction the node refused did not use its nonce: the next send may.
  void releaseNonce() {
    w_.transaction([&](RequestContext& ctx) {
      ctx.db().exec(
          "UPDATE signing_send_nonces SET next_nonce = ? WHERE caip2 = ? AND address = ? AND "
          "next_nonce = ?",
          {s_.senderNonce, s_.caip2, s_.sender, s_.senderNonce + 1});
    });
  }

  void poll() override {
    EthNode node = b_.ethNode(s_.caip2);
    auto receipt = node.receipt(s_.txHash);
    if (!receipt) {
      if (waitedTooLong())
        fail("not included within " + std::to_string(b_.settings().giveUpSeconds) + " seconds");
      else
        later();
      return;
    }
    if (receipt->success) {
      w_.transaction([&](RequestContext& ctx) {
        recordIncluded(ctx.db(), s_.id, w_.nowMs());
        if (s_.kind == SendKind::kEthSponsored)
          recordUsage(ctx.db(), s_.id, s_.organizationId, s_.billingOrganizationId, cost(*receipt),
                      w_.nowMs());
      });
      return;
    }
    json::Object outer = s_.request->getObject("outer");
    CallRequest replay{hexBytes(s_.sender),
                       hexBytes(outer->getValue<std::string>("to")),
                       hexBytes(outer->getValue<std::string>("value")),
                       hexBytes(outer->getValue<std::string>("data")),
                       {},
                       static_cast<uint64_t>(outer->getValue<int64_t>("gas"))};
    json::Array auths = outer->getArray("authorizations");
    for (unsigned i = 0; auths && i < auths->size(); ++i)
      replay.authorizations.push_back(authorizationFrom(auths->getObject(i)));
    // The revert data is not in the receipt: the call is run again on the state before its
    // block.
    Bytes data;
    try {
      node.call(replay, toQuantity(static_cast<Uint128>(receipt->blockNumber - 1)));
    } catch (const RpcError& e) {
      data = revertDataOf(e);
    }
    auto chain = revertChain(outer->getValue<std::string>("revertAt"), data);
    w_.transaction([&](RequestContext& ctx) {
      recordFailed(
          ctx.db(), s_.id, revertSummary(chain),
          txErrorJson("the transaction reverted in block " + std::to_string(receipt->blockNumber),
                      chain),
          w_.nowMs());
      if (s_.kind == SendKind::kEthSponsored)
        recordUsage(ctx.db(), s_.id, s_.organizationId, s_.billingOrganizationId, cost(*receipt),
                    w_.nowMs());
    });
  }

  // What the sponsor paid: gas used at the effective gas price.
  Uint128 cost(const Receipt& r) {
    return usdCost(static_cast<Uint128>(r.gasUsed) * r.effectiveGasPrice, 18);
  }
};
}  // namespace

void stepEth(Broadcast& b, WorkerContext& w, Send& s) {
  EthStep(b, w, s).run();
}

}  // namespace signing::broadcast
