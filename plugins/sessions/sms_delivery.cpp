#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/URI.h>

#include <cstdlib>
#include <memory>

#include "delivery.hpp"
#include "outbox.hpp"
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
  try {
    Poco::URI uri(sms.url);
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (uri.getScheme() == "https")
      session = std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort());
    else
      session = std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
    session->setTimeout(Poco::Timespan(sms.timeoutSeconds, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, uri.getPathEtc(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    if (!sms.authorizationEnv.empty())
      if (const char* auth = std::getenv(sms.authorizationEnv.c_str()))
        request.set("Authorization", auth);
    session->sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    session->receiveResponse(response).ignore(1 << 20);
    int status = static_cast<int>(response.getStatus());
    if (status < 200 || status > 299)
      throw Error(Code::kUnavailable, "SMS delivery to " + message.to + " failed: the provider " +
                                          sms.url + " answered " + std::to_string(status) + " " +
                                          response.getReason());
  } catch (const Error&) {
    throw;
  } catch (const Poco::Exception& e) {
    throw Error(Code::kUnavailable, "SMS delivery to " + message.to + " through " + sms.url +
                                        " failed: " + e.displayText());
  }
}

}  // namespace sessions
