// One delivery attempt: a POST to the checked address of the endpoint (url_policy.hpp), with
// the endpoint's host name in the Host header and, over https, for SNI and the certificate
// check. Redirects are not followed; the answer's body is read and dropped.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "url_policy.hpp"

namespace webhooks {

struct AttemptResult {
  int httpStatus = 0;  // 0: no answer (network error or timeout)
  std::string error;   // why, when there was no answer
};

AttemptResult postDelivery(const Target& target,
                           const std::vector<std::pair<std::string, std::string>>& headers,
                           const std::string& body, int timeoutSeconds);

}  // namespace webhooks
