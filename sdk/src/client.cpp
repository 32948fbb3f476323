#include "signet/client.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SSLException.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace signet {

namespace {
// A TLS client context trusting the system's CAs and `caFile`, with the peer's certificate and
// host name checked (Poco checks the name for a client session whose peer it verifies). One per
// CA file for the process: loading the system's CAs costs more than a request, and the auth
// proxy makes a client per request. A CA file that cannot be read fails here, naming it.
Poco::Net::Context::Ptr tlsContext(const std::string& caFile) {
  static std::mutex mutex;
  static std::map<std::string, Poco::Net::Context::Ptr> contexts;
  std::lock_guard lock(mutex);
  auto& context = contexts[caFile];
  if (context) return context;
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_RELAXED;
  params.loadDefaultCAs = true;
  params.caLocation = caFile;
  try {
    context = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
  } catch (const Poco::Exception& e) {
    contexts.erase(caFile);
    throw TlsError("cannot use the CA file '" + caFile + "': " + e.displayText());
  }
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  return context;
}
}  // namespace

ApiKeyStamper::ApiKeyStamper(crypto::SecretBytes privateKey, stamp::Scheme scheme)
    : privateKey_(std::move(privateKey)), scheme_(scheme) {
  publicKey_ = toHex(crypto::publicKeyFromPrivate(stamp::curveOf(scheme_), privateKey_));
}

std::shared_ptr<ApiKeyStamper> ApiKeyStamper::fromHex(const std::string& privateKeyHex,
                                                      stamp::Scheme scheme) {
  auto bytes = signet::fromHex(privateKeyHex);
  if (!bytes || bytes->size() < 32) throw invalidArgument("the private key is not 32-byte hex");
  // Go writes Ed25519 keys as seed‖public (64 bytes); the seed is what signs.
  bytes->resize(32);
  return std::make_shared<ApiKeyStamper>(crypto::SecretBytes(std::move(*bytes)), scheme);
}

std::pair<std::string, std::string> ApiKeyStamper::stamp(std::string_view body) {
  return {"X-Stamp", stamp::encodeHeader(stamp::sign(scheme_, privateKey_, body))};
}

Client::Client(std::string baseUrl, std::shared_ptr<Stamper> stamper, std::string caFile)
    : caFile_(std::move(caFile)), stamper_(std::move(stamper)) {
  Poco::URI uri(baseUrl);
  if (uri.getScheme() != "http" && uri.getScheme() != "https")
    throw invalidArgument("base URL must be http://host:port or https://host:port, got " + baseUrl);
  https_ = uri.getScheme() == "https";
  if (https_) tlsContext(caFile_);  // a CA file that cannot be read is refused at once
  host_ = uri.getHost();
  port_ = uri.getPort();
  prefix_ = uri.getPath();
  if (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
}

HttpResponse Client::post(const std::string& path, const std::string& body,
                          const std::vector<std::pair<std::string, std::string>>& headers) const {
  return exchange(Poco::Net::HTTPRequest::HTTP_POST, path, body, headers);
}

HttpResponse Client::get(const std::string& path) const {
  return exchange(Poco::Net::HTTPRequest::HTTP_GET, path, "", {});
}

HttpResponse Client::exchange(
    const std::string& method, const std::string& path, const std::string& body,
    const std::vector<std::pair<std::string, std::string>>& headers) const {
  std::unique_ptr<Poco::Net::HTTPClientSession> session;
  if (https_)
    session = std::make_unique<Poco::Net::HTTPSClientSession>(host_, port_, tlsContext(caFile_));
  else
    session = std::make_unique<Poco::Net::HTTPClientSession>(host_, port_);
  session->setTimeout(Poco::Timespan(30, 0));
  Poco::Net::HTTPRequest req(method, prefix_ + path, Poco::Net::HTTPMessage::HTTP_1_1);
  if (method == Poco::Net::HTTPRequest::HTTP_POST) {
    req.setContentType("application/json");
    req.setContentLength(static_cast<std::streamsize>(body.size()));
    req.set("X-Client-Version", "signet-cpp-client/0.1");
    if (stamper_) {
      auto [name, value] = stamper_->stamp(body);
      req.set(name, value);
    }
  }
  for (const auto& [name, value] : headers_) req.set(name, value);
  for (const auto& [name, value] : headers) req.set(name, value);
  try {
    session->sendRequest(req) << body;
    Poco::Net::HTTPResponse resp;
    std::istream& in = session->receiveResponse(resp);
    HttpResponse out;
    out.status = resp.getStatus();
    out.contentType = resp.getContentType();
    for (const auto& [name, value] : resp) out.headers.emplace_back(name, value);
    Poco::StreamCopier::copyToString(in, out.body);
    return out;
  } catch (const Poco::Net::SSLException& e) {
    throw TlsError("TLS with https://" + host_ + ":" + std::to_string(port_) +
                   " failed, its certificate checked against the system's trusted CAs" +
                   (caFile_.empty() ? std::string() : " and " + caFile_) + ": " + e.displayText());
  }
}

json::Object Client::send(const std::string& path, const std::string& body) const {
  HttpResponse r = post(path, body);
  if (r.status < 200 || r.status > 299) {
    Code code = Code::kInternal;
    std::string message = r.body;
    try {
      auto err = json::parseObject(r.body, "error body");
      code = static_cast<Code>(err->getValue<int>("code"));
      message = err->getValue<std::string>("message");
    } catch (...) {
    }
    throw RequestError(r.status, code, message);
  }
  return json::parseObject(r.body, "response body");
}

json::Object Client::query(const std::string& op, const json::Object& body) const {
  return send("/public/v1/query/" + op, json::stringify(body));
}

json::Object Client::submitRaw(const std::string& op, const std::string& body) const {
  json::Object activity = send("/public/v1/submit/" + op, body)->getObject("activity");
  // Activities run synchronously here, but clients must still poll CREATED/PENDING.
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::string status = activity->getValue<std::string>("status");
    if (status != "ACTIVITY_STATUS_CREATED" && status != "ACTIVITY_STATUS_PENDING") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    json::Object q = json::object();
    q->set("organizationId", activity->getValue<std::string>("organizationId"));
    q->set("activityId", activity->getValue<std::string>("id"));
    activity = query("get_activity", q)->getObject("activity");
  }
  return activity;
}

json::Object Client::submit(const std::string& op, const std::string& type,
                            const std::string& organizationId,
                            const json::Object& parameters) const {
  int64_t nowMs = clock_ ? clock_()
                         : std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  json::Object body = json::object();
  body->set("type", type);
  body->set("timestampMs", std::to_string(nowMs));
  body->set("organizationId", organizationId);
  body->set("parameters", parameters);
  return submitRaw(op, json::stringify(body));
}

}  // namespace signet
