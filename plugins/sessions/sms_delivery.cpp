#include <cstdlib>

#include "delivery.hpp"
#include "outbox.hpp"
#include "signet/egress.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"

namespace sessions {

using namespace signet;

void Delivery::sendSms(const SmsMessage& message) const {
  const auto& sms = settings_.sms;
  json::Object payload = json::object();
  payload->set("to", message.to);
  payload->set("body", message.body);
  std::string body = json::stringify(payload);
  if (sms.transport == "outbox") {
    writeToOutbox(settings_.outboxDir, "sms.json", body);
    return;
  }
  egress::Request request{
      .method = "POST", .url = sms.url, .contentType = "application/json", .body = body};
  if (!sms.authorizationEnv.empty())
    if (const char* auth = std::getenv(sms.authorizationEnv.c_str()))
      request.headers.emplace_back("Authorization", auth);
  // The provider's URL is the operator's (sms.url, http:// or https://): any address may be used.
  auto answer = egress::exchange(
      request, {.peer = "the SMS provider, delivering to " + message.to,
                .deadline = egress::Clock::now() + std::chrono::seconds(sms.timeoutSeconds),
                .allowHttp = true,
                .allowInternal = true,
                .maxAnswerBytes = 64 * 1024});
  if (answer.status < 200 || answer.status > 299)
    throw Error(Code::kUnavailable, "SMS delivery to " + message.to + " failed: the provider " +
                                        sms.url + " answered HTTP " +
                                        std::to_string(answer.status));
}

}  // namespace sessions
