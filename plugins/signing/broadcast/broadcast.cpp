#include "broadcast.hpp"

#include "facts.hpp"

#include <Poco/Logger.h>

#include <map>

#include "assets.hpp"
#include "gas_usage.hpp"
#include "history.hpp"
#include "sponsor.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr int kBatch = 20;          // sends moved per round
constexpr int kRoundsPerPoll = 20;  // history rounds a chain may run back to back
}  // namespace

std::string configuredChain(const Broadcast& b, const std::string& given, const std::string& field,
                            ChainFamily family) {
  auto chain = normalizeCaip2(given);
  const char* kind = family == ChainFamily::kSolana     ? "a Solana"
                     : family == ChainFamily::kEthereum ? "an Ethereum (eip155)"
                                                        : "an eip155 or Solana";
  if (!chain ||
      (family != ChainFamily::kAny && isSolana(*chain) != (family == ChainFamily::kSolana)))
    throw invalidArgument("invalid field " + field + ": \"" + given + "\" is not " + kind +
                          " CAIP-2 chain id");
  if (!b.settings().rpc.count(*chain))
    throw invalidArgument("invalid field " + field + ": no node is configured for \"" + given +
                          "\" (plugins.settings.signing.broadcast.rpc)");
  return *chain;
}

std::string requireChain(const Broadcast& b, const std::string& caip2, bool solana) {
  return configuredChain(b, caip2, "parameters.caip2",
                         solana ? ChainFamily::kSolana : ChainFamily::kEthereum);
}

std::optional<JsonRpc> Broadcast::node(const std::string& caip2) const {
  auto url = settings_.rpc.find(caip2);
  if (url == settings_.rpc.end()) return std::nullopt;
  return JsonRpc(url->second, "the " + caip2 + " node", settings_.timeoutSeconds,
                 settings_.allowInsecureUrls);
}

EthNode Broadcast::ethNode(const std::string& caip2) {
  auto rpc = node(caip2);
  if (!rpc) throw failedPrecondition("no node is configured for " + caip2);
  EthNode n(*rpc);
  {
    std::lock_guard<std::mutex> lock(checkedMutex_);
    if (checkedChains_.count(caip2)) return n;
  }
  // A node of another chain would take signatures meant for this one elsewhere. Asked outside
  // the lock: a slow node holds up only its own caller.
  uint64_t id = n.chainId();
  if ("eip155:" + std::to_string(id) != caip2)
    throw failedPrecondition(n.name() + " is chain eip155:" + std::to_string(id) + ", not " +
                             caip2 + " (plugins.settings.signing.broadcast.rpc)");
  std::lock_guard<std::mutex> lock(checkedMutex_);
  checkedChains_.insert(caip2);
  return n;
}

void Broadcast::wake() {
  if (auto* w = worker_.load()) w->wake();
}

void Broadcast::run(WorkerContext& w) {
  worker_ = &w;
  const int64_t claimMs = 2 * int64_t{settings_.timeoutSeconds} * 1000 * 4 + 5000;
  while (w.waitFor(settings_.pollIntervalMs)) {
    bool anyDue = false;
    w.read([&](RequestContext& ctx) { anyDue = anySendDue(ctx.db(), w.nowMs()); });
    if (!anyDue) continue;
    std::vector<Send> due;
    w.transaction(
        [&](RequestContext& ctx) { due = claimDueSends(ctx.db(), w.nowMs(), claimMs, kBatch); });
    for (auto& s : due) {
      if (w.stopping()) break;
      step(w, s);
    }
  }
  worker_ = nullptr;
}

void Broadcast::followHistory(WorkerContext& w) {
  std::map<std::string, std::string> failing;  // chain -> the error last logged
  while (w.waitFor(settings_.pollIntervalMs)) {
    for (const auto& [chain, from] : settings_.historyFrom) {
      if (w.stopping()) break;
      try {
        // A follower behind its chain goes on at once, a bounded number of rounds, so that it
        // catches up with a fast chain (Arbitrum makes several blocks a second) whatever the
        // poll interval; the other chains then get their turn.
        for (int round = 0; round < kRoundsPerPoll && !w.stopping(); ++round)
          if (!(isSolana(chain) ? followSol(*this, w, chain, from)
                                : followEth(*this, w, chain, from)))
            break;
        if (failing.erase(chain))
          Poco::Logger::get("signet.plugins").information("signing: history of %s resumed", chain);
      } catch (const std::exception& e) {
        // Logged once per cause, not once per poll, while a node stays away.
        if (failing[chain] != e.what())
          Poco::Logger::get("signet.plugins")
              .warning("signing: history of %s stands still: %s", chain, std::string(e.what()));
        failing[chain] = e.what();
      }
    }
  }
}

void Broadcast::step(WorkerContext& w, Send& s) {
  try {
    if (s.kind == SendKind::kSol || s.kind == SendKind::kSolSponsored)
      stepSol(*this, w, s);
    else
      stepEth(*this, w, s);
  } catch (const std::exception& e) {
    // A bug or a store error: the claim runs out and the send is tried again.
    Poco::Logger::get("signet.plugins")
        .error("signing: send %s could not be moved along: %s", s.id, std::string(e.what()));
  }
}

void registerBroadcast(Registry& r, std::shared_ptr<Broadcast> b) {
  // A member of `b` as the handler of a row whose parameters `shape` reads.
  auto activity = [b]<class P>(const Shape<P>& shape,
                               json::Object (Broadcast::*op)(ActivityContext&, const P&)) {
    return shape.handler([b, op](ActivityContext& ctx, const P& p) { return ((*b).*op)(ctx, p); });
  };
  auto ethSend = [&](const char* type, const char* intentKey, const char* resultKey,
                     const Shape<EthSendTransactionParameters>& shape) {
    r.activity({.type = type,
                .path = "eth_send_transaction",
                .intentKey = intentKey,
                .resultKey = resultKey,
                .resource = "PRIVATE_KEY",
                .action = "SIGN",
                .handler = activity(shape, &Broadcast::ethSendTransaction),
                .parameters = shape.specs(),
                .facts = sendTransactionFacts});
  };
  auto solSend = [&](const char* type, const char* intentKey, const char* resultKey,
                     const Shape<SolSendTransactionParameters>& shape) {
    r.activity({.type = type,
                .path = "sol_send_transaction",
                .intentKey = intentKey,
                .resultKey = resultKey,
                .resource = "PRIVATE_KEY",
                .action = "SIGN",
                .handler = activity(shape, &Broadcast::solSendTransaction),
                .parameters = shape.specs(),
                .facts = sendTransactionFacts});
  };
  auto undelegate = [&](const char* type) {
    r.activity({.type = type,
                .path = "eth_undelegate_7702",
                .intentKey = "ethUndelegate7702Intent",
                .resultKey = "ethUndelegate7702Result",
                .resource = "PRIVATE_KEY",
                .action = "SIGN",
                .handler = activity(kEthUndelegate, &Broadcast::ethUndelegate),
                .parameters = kEthUndelegate.specs(),
                .facts = sendTransactionFacts});
  };
  // clang-format off
  ethSend("ACTIVITY_TYPE_ETH_SEND_TRANSACTION", "ethSendTransactionIntent", "ethSendTransactionResult",
          kEthSendTransactionV1);
  ethSend("ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", "ethSendTransactionIntentV2", "ethSendTransactionResultV2",
          kEthSendTransactionV2);
  // Both spellings are in use: the public API's, and @turnkey/sdk-server's.
  undelegate("ACTIVITY_TYPE_ETH_UNDELEGATE_7702");
  undelegate("ACTIVITY_TYPE_ETH_UNDELEGATE7702");
  r.activity({.type = "ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION", .path = "eth_send_raw_transaction",
              .intentKey = "ethSendRawTransactionIntent", .resultKey = "ethSendRawTransactionResult",
              .resource = "PRIVATE_KEY", .action = "SIGN",
              .handler = activity(kEthSendRawTransaction, &Broadcast::ethSendRawTransaction),
              .parameters = kEthSendRawTransaction.specs()});
  solSend("ACTIVITY_TYPE_SOL_SEND_TRANSACTION", "solSendTransactionIntent", "solSendTransactionResult",
          kSolSendTransactionV1);
  solSend("ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2", "solSendTransactionIntentV2", "solSendTransactionResultV2",
          kSolSendTransactionV2);
  r.activity({.type = "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG", .path = "upsert_gas_usage_config",
              .intentKey = "upsertGasUsageConfigIntent", .resultKey = "upsertGasUsageConfigResult",
              .resource = "SPONSORSHIP", .action = "UPDATE", .rootQuorumOnly = true,
              .handler = kUpsertGasUsageConfig.handler(upsertGasUsageConfig),
              .parameters = kUpsertGasUsageConfig.specs()});
  r.query({"get_send_transaction_status", sendStatus});
  r.query({"get_gas_usage",               getGasUsage});
  r.query({"get_nonces", [b](RequestContext& ctx, const json::Object& body) {
             return b->getNonces(ctx, body); }});
  r.query({"list_supported_assets", [b](RequestContext& ctx, const json::Object& body) {
             return listSupportedAssets(*b, ctx, body); }});
  r.query({"get_wallet_address_balances", [b](RequestContext& ctx, const json::Object& body) {
             return getWalletAddressBalances(*b, ctx, body); }});
  r.query({"list_eth_transaction_history", [b](RequestContext& ctx, const json::Object& body) {
             return listEthTransactionHistory(*b, ctx, body); }});
  r.query({"list_sol_transaction_history", [b](RequestContext& ctx, const json::Object& body) {
             return listSolTransactionHistory(*b, ctx, body); }});
  if (!b->settings().historyFrom.empty())
    r.worker({"history", [b](WorkerContext& w) { b->followHistory(w); }});
  r.worker({"sends", [b](WorkerContext& w) { b->run(w); }});
  r.gauge({.name = "signet_signing_sends_in_flight",
           .help = "Sends recorded and not yet INCLUDED or FAILED",
           .read = [](RequestContext& ctx) {
             return static_cast<double>(
                 ctx.db()
                     .queryOne("SELECT COUNT(*) AS n FROM signing_sends WHERE status IN "
                               "('INITIALIZED', 'BROADCASTING')")
                     ->i64("n"));
           }});
  r.command(createSponsorCommand());
  // clang-format on
}

}  // namespace signing::broadcast
