#include "send_step.hpp"

#include <Poco/Logger.h>

#include "gas_usage.hpp"

namespace signing::broadcast {

using namespace signet;

void SendStep::run() {
  try {
    if (s_.status == kBroadcasting)
      poll();
    else if (!s_.signedTx.empty() || sign())
      send();
  } catch (const RpcError& e) {
    fail("the node refused: " + e.rpcMessage(), rpcFailure(e));
  } catch (const Error& e) {
    if (e.code() == Code::kUnavailable)
      retry(e.what());
    else
      fail(e.what());
  }
}

void SendStep::later() {
  w_.transaction([&](RequestContext& ctx) {
    recordRetry(ctx.db(), s_.id, s_.attempts + 1, w_.nowMs() + b_.settings().pollIntervalMs, "",
                w_.nowMs());
  });
}

bool SendStep::waitedTooLong() const {
  return s_.attempts * b_.settings().pollIntervalMs > int64_t{b_.settings().giveUpSeconds} * 1000;
}

void SendStep::retry(const std::string& cause) {
  if (w_.nowMs() - s_.createdAtMs > int64_t{b_.settings().giveUpSeconds} * 1000) return fail(cause);
  int64_t wait = std::min<int64_t>(
      int64_t{b_.settings().pollIntervalMs} << std::min<int64_t>(s_.attempts, 5), 30'000);
  w_.transaction([&](RequestContext& ctx) {
    recordRetry(ctx.db(), s_.id, s_.attempts + 1, w_.nowMs() + wait, cause, w_.nowMs());
  });
}

Uint128 SendStep::usdCost(Uint128 baseUnits, int decimals) {
  std::optional<Uint128> price;
  try {
    price = b_.prices().usdMicros(s_.caip2, w_.nowMs());
  } catch (const Error&) {  // the source is away and never answered: the price at signing
  }
  if (!price) price = parseU128(s_.request->optValue<std::string>("priceMicros", "0"));
  return usdMicros(baseUnits, price.value_or(0), decimals);
}

void SendStep::fail(const std::string& cause, json::Object error) {
  if (!error) {
    error = json::object();
    error->set("message", cause);
  }
  w_.transaction(
      [&](RequestContext& ctx) { recordFailed(ctx.db(), s_.id, cause, error, w_.nowMs()); });
  Poco::Logger::get("signet.plugins")
      .information("signing: send %s on %s failed: %s", s_.id, s_.caip2, cause);
}

}  // namespace signing::broadcast
