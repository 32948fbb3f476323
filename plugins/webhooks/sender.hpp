// One delivery attempt: a POST through the egress policy (url_policy.hpp), under one deadline
// that covers connecting, TLS, the request and the whole answer. Redirects are not followed; the
// answer's body is read and dropped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace webhooks {

struct AttemptResult {
  int httpStatus = 0;  // 0: no answer (network error or timeout)
  std::string error;   // why, when there was no answer
};

AttemptResult postDelivery(const std::string& url,
                           const std::vector<std::pair<std::string, std::string>>& headers,
                           const std::string& body, bool allowInsecure, int timeoutSeconds);

}  // namespace webhooks
