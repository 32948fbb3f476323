// plugins.settings.webhooks: how deliveries are made. Every field is optional.
//   allowInsecureUrls      plain http and loopback/private addresses (development and tests
//                          only; `signet serve` says so at start-up)
//   retryScheduleSeconds   the waits between attempts after a network error or a 5xx; when
//                          they are used up the delivery is dead (default about 24 hours)
//   timeoutSeconds         one attempt's connect-and-answer deadline (default 10)
//   senders                attempts in flight at once in all, one an endpoint at most
//                          (default 16)
//   maxBacklogPerEndpoint  pending deliveries one endpoint may hold; past it the one due
//                          soonest (the oldest, in practice) is dropped and counted
//                          (default 10000)
//   maxEndpointsPerOrganization (default 10)
#pragma once

#include <cstdint>
#include <vector>

#include "signet/json.hpp"

namespace webhooks {

struct Settings {
  bool allowInsecureUrls = false;
  std::vector<int64_t> retryScheduleSeconds = {10,   30,   60,    300,   900,   1800,
                                               3600, 7200, 14400, 21600, 21600, 21600};
  int timeoutSeconds = 10;
  int senders = 16;
  int64_t maxBacklogPerEndpoint = 10000;
  int maxEndpointsPerOrganization = 10;
};

Settings parseSettings(const signet::json::Object& o);

}  // namespace webhooks
