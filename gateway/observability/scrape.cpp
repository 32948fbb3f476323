#include "observability/scrape.hpp"

#include <Poco/Logger.h>

#include "activity/handler_context.hpp"
#include "gateway.hpp"
#include "signet/egress.hpp"
#include "signet/memory.hpp"
#include "signet/metrics.hpp"

namespace signet {

bool metricsAllowedFrom(const std::string& peer) {
  return peer.rfind("127.", 0) == 0 || peer == "::1" || peer.rfind("::ffff:127.", 0) == 0;
}

std::string scrapeMetrics(Gateway& gateway) {
  std::vector<Metrics::GaugeRow> gauges;
  gauges.push_back({"signet_egress_calls_in_flight",
                    "Outbound calls in flight (webhooks, issuers, providers, nodes)",
                    {},
                    static_cast<double>(egress::inFlight())});
  static const AllocatorInForce allocator = allocatorInForce();
  gauges.push_back({"signet_memory_allocator_info",
                    "The allocator serving the gateway's memory: mimalloc, libc, asan, or other",
                    {{"allocator", allocator.name}, {"version", allocator.version}},
                    1});
  try {
    onSnapshot(gateway, [&](RequestContext& ctx) {
      // The outbox, per module: events written but not yet handled.
      for (const auto& m : gateway.catalog().modules())
        if (m->enabled && m->activityEvents.handler)
          gauges.push_back(
              {"signet_activity_events_pending",
               "Activity events in the core's outbox, not yet handled, by module",
               {{"module", m->name}},
               static_cast<double>(ctx.db()
                                       .queryOne("SELECT COUNT(*) AS n FROM activity_events "
                                                 "WHERE module = ?",
                                                 {m->name})
                                       ->i64("n"))});
      for (const auto& m : gateway.catalog().modules()) {
        if (!m->enabled) continue;
        for (const auto& g : m->gauges) {
          try {
            gauges.push_back({g.name, g.help, {}, g.read(ctx)});
          } catch (const std::exception&) {
            // Counted and logged by the plugin guard; the scrape goes on without it.
          }
        }
      }
    });
  } catch (const std::exception& e) {
    // The store is down: the counters still say what happened, which is what an operator
    // needs then. The gauge says the store could not be read.
    Poco::Logger::get("signet.metrics").warning("gauges left out: %s", std::string(e.what()));
    gauges.push_back({"signet_store_up", "Whether the last scrape could read the store", {}, 0});
    return Metrics::global().render(gauges);
  }
  gauges.push_back({"signet_store_up", "Whether the last scrape could read the store", {}, 1});
  return Metrics::global().render(gauges);
}

}  // namespace signet
