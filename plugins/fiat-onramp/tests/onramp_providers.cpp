#include "onramp_providers.hpp"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include "signet/encoding.hpp"
#include "signet/json.hpp"
#include "signet/jwt.hpp"

namespace signet::test {

namespace {
class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(OnRampProviders& p) : providers_(p) {}
  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& res) override {
    std::string body;
    Poco::StreamCopier::copyToString(req.stream(), body);
    auto [status, answer] =
        providers_.answer(req.getMethod(), req.getURI(), req.get("Authorization", ""), body);
    res.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    res.setContentType("application/json");
    res.sendBuffer(answer.data(), answer.size());
  }

 private:
  OnRampProviders& providers_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(OnRampProviders& p) : providers_(p) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(providers_);
  }

 private:
  OnRampProviders& providers_;
};

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}
}  // namespace

OnRampProviders::OnRampProviders(std::string moonPayPublishable, std::string moonPaySecret,
                                 std::string coinbaseKeyId, Bytes coinbasePublicKey)
    : moonPayPublishable_(std::move(moonPayPublishable)),
      moonPaySecret_(std::move(moonPaySecret)),
      coinbaseKeyId_(std::move(coinbaseKeyId)),
      coinbasePublicKey_(std::move(coinbasePublicKey)) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket,
                                                    new Poco::Net::HTTPServerParams);
  server_->start();
}

OnRampProviders::~OnRampProviders() {
  server_->stopAll(true);
}

std::string OnRampProviders::url() const {
  return "http://" + hostAndPort();
}

std::string OnRampProviders::hostAndPort() const {
  return "127.0.0.1:" + std::to_string(server_->port());
}

void OnRampProviders::report(const std::string& transactionId, const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  reports_[transactionId] = status;
}

std::vector<OnRampProviders::IssuedToken> OnRampProviders::issuedTokens() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tokens_;
}

std::vector<std::string> OnRampProviders::refusals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refusals_;
}

int OnRampProviders::statusRequestsFor(const std::string& transactionId) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = statusRequestsFor_.find(transactionId);
  return it == statusRequestsFor_.end() ? 0 : it->second;
}

int OnRampProviders::statusRequests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return statusRequests_;
}

std::pair<int, std::string> OnRampProviders::refuse(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  refusals_.push_back(why);
  return {401, "{\"message\":\"" + why + "\"}"};
}

bool OnRampProviders::coinbaseJwtHolds(const std::string& authorization, const std::string& method,
                                       const std::string& path) {
  if (!startsWith(authorization, "Bearer ")) return false;
  std::string token = authorization.substr(7);
  auto verified = jwt::verifyEs256(token, coinbasePublicKey_, jwt::Hashing::kSingleSha256);
  auto parts = jwt::split(token);
  if (!verified || !parts) return false;
  json::Object claims = *verified;
  auto headerBytes = base64Decode(parts->header);
  if (!headerBytes) return false;
  auto header = json::parseObject(toString(*headerBytes), "JWT header");
  int64_t nbf = claims->optValue<int64_t>("nbf", 0), exp = claims->optValue<int64_t>("exp", 0);
  return header->optValue<std::string>("kid", "") == coinbaseKeyId_ &&
         header->optValue<std::string>("alg", "") == "ES256" &&
         header->optValue<std::string>("nonce", "").size() >= 16 &&
         claims->optValue<std::string>("sub", "") == coinbaseKeyId_ &&
         claims->optValue<std::string>("iss", "") == "cdp" && exp - nbf == 120 &&
         claims->has("uris") && claims->getArray("uris")->size() == 1 &&
         claims->getArray("uris")->getElement<std::string>(0) ==
             method + " " + hostAndPort() + path;
}

std::pair<int, std::string> OnRampProviders::answer(const std::string& method,
                                                    const std::string& uri,
                                                    const std::string& authorization,
                                                    const std::string& body) {
  Poco::URI parsed(uri);
  std::string path = parsed.getPath();
  const std::string moonPay = "/v1/transactions/ext/";
  if (method == "GET" && startsWith(path, moonPay)) {
    if (authorization != "Api-Key " + moonPaySecret_) return refuse("MoonPay: wrong secret key");
    bool keyGiven = false;
    for (const auto& [k, v] : parsed.getQueryParameters())
      keyGiven |= k == "apiKey" && v == moonPayPublishable_;
    if (!keyGiven) return refuse("MoonPay: wrong publishable key");
    std::lock_guard<std::mutex> lock(mutex_);
    ++statusRequests_;
    ++statusRequestsFor_[path.substr(moonPay.size())];
    auto it = reports_.find(path.substr(moonPay.size()));
    if (it == reports_.end()) return {200, "[]"};
    return {200, "[{\"id\":\"mp-1\",\"status\":\"" + it->second + "\"}]"};
  }
  if (method == "POST" && path == "/onramp/v1/token") {
    if (!coinbaseJwtHolds(authorization, method, path)) return refuse("Coinbase: bad JWT");
    auto request = json::parseObject(body, "token request");
    auto address = request->getArray("addresses")->getObject(0);
    std::lock_guard<std::mutex> lock(mutex_);
    IssuedToken t{"session-token-" + std::to_string(tokens_.size() + 1),
                  address->getValue<std::string>("address"),
                  address->getArray("blockchains")->getElement<std::string>(0),
                  request->getArray("assets")->getElement<std::string>(0)};
    tokens_.push_back(t);
    return {200, "{\"token\":\"" + t.token + "\",\"channel_id\":\"\"}"};
  }
  const std::string coinbase = "/onramp/v1/buy/user/";
  if (method == "GET" && startsWith(path, coinbase)) {
    if (!coinbaseJwtHolds(authorization, method, path)) return refuse("Coinbase: bad JWT");
    std::string id = path.substr(coinbase.size());
    id = id.substr(0, id.find('/'));
    std::lock_guard<std::mutex> lock(mutex_);
    ++statusRequests_;
    ++statusRequestsFor_[id];
    auto it = reports_.find(id);
    if (it == reports_.end()) return {200, "{\"transactions\":[],\"total_count\":\"0\"}"};
    return {200, "{\"transactions\":[{\"status\":\"" + it->second + "\",\"partner_user_ref\":\"" +
                     id + "\"}],\"total_count\":\"1\"}"};
  }
  return {404, "{\"message\":\"not found\"}"};
}

}  // namespace signet::test
