#include "sender.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/NullStream.h>
#include <Poco/StreamCopier.h>

#include <memory>

namespace webhooks {

AttemptResult postDelivery(const Target& target,
                           const std::vector<std::pair<std::string, std::string>>& headers,
                           const std::string& body, int timeoutSeconds) {
  AttemptResult result;
  try {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (target.https) {
      Poco::Net::Context::Ptr context = new Poco::Net::Context(
          Poco::Net::Context::TLS_CLIENT_USE, "", "", "", Poco::Net::Context::VERIFY_RELAXED, 9,
          true /* the system's CA store */);
      Poco::Net::SecureStreamSocket socket(context);
      socket.setPeerHostName(target.host);  // SNI and the certificate's name
      auto https = std::make_unique<Poco::Net::HTTPSClientSession>(socket);
      https->setHost(target.address.toString());  // connect to the checked address only
      https->setPort(target.port);
      session = std::move(https);
    } else {
      session = std::make_unique<Poco::Net::HTTPClientSession>(
          Poco::Net::SocketAddress(target.address, target.port));
    }
    session->setTimeout(Poco::Timespan(timeoutSeconds, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_POST, target.pathAndQuery,
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(target.host, target.port);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    for (const auto& [name, value] : headers) request.set(name, value);
    session->sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    Poco::NullOutputStream sink;
    Poco::StreamCopier::copyStream(in, sink);
    result.httpStatus = static_cast<int>(response.getStatus());
  } catch (const Poco::Exception& e) {
    result.error = e.displayText();
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace webhooks
