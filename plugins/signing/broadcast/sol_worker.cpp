// One step of a Solana send (broadcast.hpp): set the blockhash, put the sponsor in front as the
// fee payer when sponsored, sign for every required signer, send (sendTransaction runs the
// node's preflight), and follow the signature until it reaches the configured confirmation
// level (settings.solanaCommitment), or until its blockhash expires: past the last valid block
// height getLatestBlockhash gave with it, a transaction not yet seen can never be included.
#include "broadcast.hpp"
#include "gas_usage.hpp"
#include "keys/key_material.hpp"
#include "send_step.hpp"
#include "solana_message.hpp"
#include "sponsor.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr uint64_t kLamportsPerSignature = 5000;  // the base fee, when the node does not say

json::Object solanaError(const std::string& source, const RpcError* e, const std::string& message,
                         const Poco::Dynamic::Var& transactionError = {}) {
  json::Object details = json::object();
  details->set("source", source);
  if (e) {
    details->set("rpcCode", e->rpcCode());
    details->set("rpcMessage", e->rpcMessage());
    if (json::Object data = objectOf(e->data())) {
      if (data->has("logs")) details->set("logs", data->get("logs"));
      if (data->has("err")) details->set("transactionErrorJson", json::stringify(data->get("err")));
      if (data->has("unitsConsumed"))
        details->set("unitsConsumed", data->get("unitsConsumed").convert<std::string>());
    }
  }
  if (!transactionError.isEmpty())
    details->set("transactionErrorJson", json::stringify(transactionError));
  json::Object error = json::object();
  error->set("message", message);
  error->set("solana", details);
  return error;
}

class SolStep : public SendStep {
 public:
  SolStep(Broadcast& b, WorkerContext& w, Send& s) : SendStep(b, w, s) {}

 private:
  JsonRpc node() const {
    auto rpc = b_.node(s_.caip2);
    if (!rpc) throw failedPrecondition("no node is configured for " + s_.caip2);
    return *rpc;
  }

  json::Object rpcFailure(const RpcError& e) override {
    return solanaError("rpc", &e, e.rpcMessage());
  }

  bool sign() override {
    JsonRpc rpc = node();
    auto tx = parseSolanaTransaction(*fromHex(s_.request->getValue<std::string>("transaction")),
                                     "the stored transaction");
    Bytes blockhash;
    if (auto given = s_.request->optValue<std::string>("recentBlockhash", ""); !given.empty()) {
      blockhash = *base58Decode(given);
    } else {
      json::Object answer = objectOf(rpc.call("getLatestBlockhash", params({commitment()})));
      json::Object value = answer ? answer->getObject("value") : nullptr;
      auto hash =
          value ? base58Decode(value->optValue<std::string>("blockhash", "")) : std::nullopt;
      if (!hash || hash->size() != 32)
        throw Error(Code::kUnavailable, rpc.name() + " answered getLatestBlockhash with no hash");
      blockhash = *hash;
      // Stored with the send, so that the worker knows when the transaction can no longer land.
      if (value->has("lastValidBlockHeight"))
        s_.request->set("lastValidBlockHeight", value->getValue<int64_t>("lastValidBlockHeight"));
    }
    tx = withBlockhash(tx, blockhash);
    std::optional<Sponsor> sponsor;
    if (s_.kind == SendKind::kSolSponsored) {
      w_.read([&](RequestContext& ctx) { sponsor = openSponsor(ctx, "solana"); });
      if (!sponsor) throw failedPrecondition("this gateway's solana sponsor key is gone");
      tx = withFeePayer(tx, *base58Decode(sponsor->address));
      // The fee the sponsor pays, for the limit: the base fee per signature.
      auto price = b_.prices().usdMicros(s_.caip2, w_.nowMs());
      if (!price) throw failedPrecondition("no USD price is configured for " + s_.caip2);
      s_.request->set("priceMicros", toDecimal(*price));
      Uint128 most = usdMicros(kLamportsPerSignature * tx.requiredSignatures, *price, 9);
      w_.read([&](RequestContext& ctx) {
        requireSponsorship(ctx.db(), s_.organizationId, s_.billingOrganizationId, most, w_.nowMs());
      });
    }
    Bytes message = tx.message();
    Bytes raw = tx.raw;
    auto place = [&](const Bytes& publicKey, const Bytes& signature) {
      raw = solanaSignedTransaction(parseSolanaTransaction(raw, "the transaction"), publicKey,
                                    signature);
    };
    if (sponsor)
      place(*base58Decode(sponsor->address),
            crypto::signEd25519(sponsor->key, message.data(), message.size()));
    json::Array signers = s_.request->getArray("signers");
    for (unsigned i = 0; i < signers->size(); ++i) {
      json::Object key = signers->getObject(i);
      SignWithTarget target;
      target.walletAccount = key->getValue<bool>("walletAccount");
      target.id = key->getValue<std::string>("id");
      target.curve = crypto::Curve::kEd25519;
      target.addressFormat = key->optValue<std::string>("addressFormat", "");
      std::optional<SigningKey> opened;
      w_.read([&](RequestContext& ctx) { opened.emplace(openSignWith(ctx, target)); });
      place(*base58Decode(key->getValue<std::string>("address")),
            crypto::signEd25519(opened->privateKey, message.data(), message.size()));
    }
    auto signed_ = parseSolanaTransaction(raw, "the signed transaction");
    s_.signedTx = toHex(raw);
    // A transaction's id is its first signature, the fee payer's.
    s_.txHash = base58Encode(Bytes(raw.begin() + static_cast<long>(signed_.signaturesOffset),
                                   raw.begin() + static_cast<long>(signed_.signaturesOffset) + 64));
    s_.sender = base58Encode(signed_.accountKeys[0]);
    s_.request->set("signatures", static_cast<int64_t>(signed_.requiredSignatures));
    w_.transaction([&](RequestContext& ctx) { recordSigned(ctx.db(), s_, w_.nowMs()); });
    return true;
  }

  void send() override {
    JsonRpc rpc = node();
    json::Object options = json::object();
    options->set("encoding", "base64");
    try {
      rpc.call("sendTransaction", params({base64Encode(toString(*fromHex(s_.signedTx))), options}));
    } catch (const RpcError& e) {
      // Sent before a crash, or the same bytes twice: the node knows the signature.
      if (asciiLower(e.rpcMessage()).find("already been processed") == std::string::npos) {
        fail("the node refused the transaction: " + e.rpcMessage(),
             solanaError("preflight", &e, e.rpcMessage()));
        return;
      }
    }
    w_.transaction([&](RequestContext& ctx) {
      recordBroadcast(ctx.db(), s_.id, w_.nowMs() + b_.settings().pollIntervalMs, w_.nowMs());
    });
  }

  // {"commitment": settings.solanaCommitment}, the options of the calls that read the chain.
  json::Object commitment() const {
    json::Object o = json::object();
    o->set("commitment", b_.settings().solanaCommitment);
    return o;
  }

  json::Object signatureStatus(const JsonRpc& rpc) const {
    json::Object options = json::object();
    options->set("searchTransactionHistory", true);
    json::Object answer = objectOf(
        rpc.call("getSignatureStatuses", params({json::stringArray({s_.txHash}), options})));
    json::Array list = answer ? answer->getArray("value") : nullptr;
    return list && list->size() > 0 ? list->getObject(0) : nullptr;
  }

  // Whether a status has reached the configured level: processed < confirmed < finalized. A
  // node that leaves confirmationStatus out says finalized with confirmations null.
  bool reachedCommitment(const json::Object& status) const {
    std::string level = status->optValue<std::string>("confirmationStatus", "");
    if (level.empty()) level = status->isNull("confirmations") ? "finalized" : "processed";
    if (b_.settings().solanaCommitment == "finalized") return level == "finalized";
    return level == "confirmed" || level == "finalized";
  }

  // The block height past which the transaction can no longer be included, and the chain's.
  std::optional<std::pair<int64_t, int64_t>> expiredBlockhash(const JsonRpc& rpc) const {
    int64_t lastValid = s_.request->optValue<int64_t>("lastValidBlockHeight", 0);
    if (lastValid <= 0) return std::nullopt;  // a blockhash the caller gave: giveUpSeconds decides
    int64_t height = rpc.call("getBlockHeight", params({commitment()})).convert<int64_t>();
    if (height <= lastValid) return std::nullopt;
    return std::make_pair(lastValid, height);
  }

  void poll() override {
    JsonRpc rpc = node();
    json::Object status = signatureStatus(rpc);
    if (!status) {
      if (auto expired = expiredBlockhash(rpc)) {
        // One more look: it may have landed in the last block its blockhash allowed.
        status = signatureStatus(rpc);
        if (!status)
          return fail("its blockhash expired: the chain is at block height " +
                          std::to_string(expired->second) + ", past " +
                          std::to_string(expired->first) +
                          ", the last at which it could be included, and the transaction was not",
                      solanaError("expiry", nullptr, "the blockhash expired before inclusion"));
      }
      if (!status) {
        if (waitedTooLong())
          return fail("not confirmed within " + std::to_string(b_.settings().giveUpSeconds) +
                      " seconds");
        return later();
      }
    }
    // Landed but not yet at the configured level: the block may still be dropped.
    if (!reachedCommitment(status)) {
      if (waitedTooLong())
        return fail("not " + b_.settings().solanaCommitment + " within " +
                    std::to_string(b_.settings().giveUpSeconds) + " seconds");
      return later();
    }
    Poco::Dynamic::Var err = status->get("err");
    bool failed = !err.isEmpty();
    Uint128 fee = 0;
    if (s_.kind == SendKind::kSolSponsored) fee = feeOf(rpc);
    w_.transaction([&](RequestContext& ctx) {
      if (failed)
        recordFailed(ctx.db(), s_.id, "the transaction failed: " + json::stringify(err),
                     solanaError("execution", nullptr, "the transaction failed", err), w_.nowMs());
      else
        recordIncluded(ctx.db(), s_.id, w_.nowMs());
      if (s_.kind == SendKind::kSolSponsored)
        recordUsage(ctx.db(), s_.id, s_.organizationId, s_.billingOrganizationId, fee, w_.nowMs());
    });
  }

  // The fee the sponsor paid (getTransaction's meta.fee, else the base fee), in micro-USD.
  Uint128 feeOf(const JsonRpc& rpc) {
    uint64_t lamports = kLamportsPerSignature *
                        static_cast<uint64_t>(s_.request->optValue<int64_t>("signatures", 1));
    try {
      json::Object options = json::object();
      options->set("encoding", "json");
      options->set("maxSupportedTransactionVersion", 0);
      json::Object tx = objectOf(rpc.call("getTransaction", params({s_.txHash, options})));
      json::Object meta = tx ? tx->getObject("meta") : nullptr;
      if (meta && meta->has("fee")) lamports = meta->getValue<uint64_t>("fee");
    } catch (const Error&) {
    }
    return usdCost(lamports, 9);
  }
};
}  // namespace

void stepSol(Broadcast& b, WorkerContext& w, Send& s) {
  SolStep(b, w, s).run();
}

}  // namespace signing::broadcast
