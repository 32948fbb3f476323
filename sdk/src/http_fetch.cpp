#include "signet/http_fetch.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/URI.h>

#include <memory>

#include "signet/error.hpp"

namespace signet::http {

namespace {
using Clock = std::chrono::steady_clock;

Poco::Timespan remaining(Clock::time_point deadline, const std::string& what) {
  auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
  if (left.count() <= 0) throw Error(Code::kUnavailable, what + ": no answer in time");
  return Poco::Timespan(left.count());
}

Poco::Net::Context::Ptr tlsContext(const std::string& caFile) {
  // The system CA store, and the peer's name checked against its certificate (Poco checks the
  // host name for client sessions when the peer is verified).
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_RELAXED;
  params.loadDefaultCAs = true;
  params.caLocation = caFile;
  auto context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  return context;
}
}  // namespace

HttpAnswer exchange(const HttpExchange& request, const std::string& peer,
                    Clock::time_point deadline, bool allowHttp, const std::string& caFile) {
  std::string what = peer + " (" + request.url + ")";
  Poco::URI uri;
  try {
    uri = Poco::URI(request.url);
  } catch (const Poco::Exception&) {
    throw Error(Code::kUnavailable, what + ": not a URL");
  }
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (uri.getScheme() == "https") {
    session = std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(),
                                                              tlsContext(caFile));
  } else if (uri.getScheme() == "http" && allowHttp) {
    session = std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
  } else {
    throw Error(Code::kUnavailable,
                what +
                    ": only https:// is allowed (plain http:// only where the operator "
                    "allowed it)");
  }
  try {
    session->setTimeout(remaining(deadline, what));
    // A URL without a path (a node's "http://host:port") asks for "/".
    std::string target = uri.getPathEtc().empty() ? "/" : uri.getPathEtc();
    if (target[0] == '?') target = "/" + target;
    Poco::Net::HTTPRequest req(request.method, target, Poco::Net::HTTPMessage::HTTP_1_1);
    req.set("Accept", "application/json");
    for (const auto& [name, value] : request.headers) req.set(name, value);
    if (!request.contentType.empty()) req.setContentType(request.contentType);
    if (request.method != "GET")
      req.setContentLength(static_cast<std::streamsize>(request.body.size()));
    session->sendRequest(req) << request.body;
    Poco::Net::HTTPResponse response;
    session->setTimeout(remaining(deadline, what));
    std::istream& in = session->receiveResponse(response);
    HttpAnswer answer;
    answer.status = static_cast<int>(response.getStatus());
    answer.cacheControl = response.get("Cache-Control", "");
    char buffer[8192];
    while (in) {
      session->setTimeout(remaining(deadline, what));
      in.read(buffer, sizeof buffer);
      answer.body.append(buffer, static_cast<size_t>(in.gcount()));
      if (answer.body.size() > kMaxAnswerBytes)
        throw Error(Code::kUnavailable, what + ": the answer is larger than " +
                                            std::to_string(kMaxAnswerBytes) + " bytes");
    }
    return answer;
  } catch (const Error&) {
    throw;
  } catch (const Poco::TimeoutException&) {
    throw Error(Code::kUnavailable, what + ": no answer in time");
  } catch (const Poco::Exception& e) {
    throw Error(Code::kUnavailable, what + " cannot be reached: " + e.displayText());
  }
}

}  // namespace signet::http
