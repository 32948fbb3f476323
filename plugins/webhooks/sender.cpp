#include "sender.hpp"

#include "url_policy.hpp"

namespace webhooks {

AttemptResult postDelivery(const std::string& url,
                           const std::vector<std::pair<std::string, std::string>>& headers,
                           const std::string& body, bool allowInsecure, int timeoutSeconds) {
  AttemptResult result;
  try {
    auto answer = signet::egress::exchange({.method = "POST",
                                            .url = url,
                                            .headers = headers,
                                            .contentType = "application/json",
                                            .body = body},
                                           deliveryRules(allowInsecure, timeoutSeconds));
    result.httpStatus = answer.status;
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace webhooks
