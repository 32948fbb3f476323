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
  } catch (const signet::Error& e) {
    // What the organization may read of a refusal: not the internal address its name resolved
    // to, which would tell it what the gateway's network holds.
    result.error = e.detailCode() == signet::egress::kRefused
                       ? "the endpoint's host resolves to an address that is not public"
                       : e.what();
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace webhooks
