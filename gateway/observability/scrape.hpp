// GET /metrics: the registry's counters and histograms, and the gauges read from the store at
// the moment of the scrape (the core's event outbox, each enabled module's GaugeSpec).
#pragma once

#include <string>

namespace signet {

class Gateway;

// Whether a client at `peer` may read /metrics on the main listener: loopback only, unless the
// operator gave metrics an address of their own (metrics.listen), where it is served to anyone
// who can reach that address.
bool metricsAllowedFrom(const std::string& peer);

// The exposition text.
std::string scrapeMetrics(Gateway& gateway);

}  // namespace signet
