#include "support/oauth2_provider.hpp"

#include <Poco/Base64Decoder.h>
#include <Poco/Net/HTMLForm.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include <sstream>

#include "signet/crypto.hpp"
#include "signet/encoding.hpp"
#include "signet/json.hpp"

namespace signet::test {

namespace {
class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(OAuth2Provider& p) : provider_(p) {}
  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& res) override {
    std::map<std::string, std::string> form;
    if (req.getMethod() == "POST") {
      Poco::Net::HTMLForm parsed(req, req.stream());
      for (const auto& [k, v] : parsed) form[k] = v;
    }
    auto [status, body] =
        provider_.answer(req.getMethod(), req.getURI(), req.get("Authorization", ""), form);
    res.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    res.setContentType("application/json");
    res.sendBuffer(body.data(), body.size());
  }

 private:
  OAuth2Provider& provider_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(OAuth2Provider& p) : provider_(p) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(provider_);
  }

 private:
  OAuth2Provider& provider_;
};

std::string error(const std::string& code, const std::string& description) {
  json::Object o = json::object();
  o->set("error", code);
  o->set("error_description", description);
  return json::stringify(o);
}

std::string fromBase64(const std::string& text) {
  std::istringstream in(text);
  Poco::Base64Decoder decoder(in);
  std::string out((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
  return out;
}
}  // namespace

OAuth2Provider::OAuth2Provider(std::string clientId, std::string clientSecret)
    : clientId_(std::move(clientId)), clientSecret_(std::move(clientSecret)) {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket,
                                                    new Poco::Net::HTTPServerParams);
  server_->start();
}

OAuth2Provider::~OAuth2Provider() {
  server_->stopAll(true);
}

std::string OAuth2Provider::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
}

std::string OAuth2Provider::issueCode(const std::string& userId, const std::string& redirectUri,
                                      const std::string& codeVerifier) {
  auto digest = crypto::sha256(codeVerifier);
  std::string code = "code-" + crypto::uuidV4();
  std::lock_guard<std::mutex> lock(mutex_);
  codes_[code] = {userId, redirectUri, base64UrlEncode(Bytes(digest.begin(), digest.end()))};
  return code;
}

std::string OAuth2Provider::lastAccessToken() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lastAccessToken_;
}

void OAuth2Provider::failTokenEndpointWith(int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  failWith_ = status;
}

int OAuth2Provider::tokenRequests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tokenRequests_;
}

std::pair<int, std::string> OAuth2Provider::answer(const std::string& method,
                                                   const std::string& path,
                                                   const std::string& authorization,
                                                   const std::map<std::string, std::string>& form) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto field = [&](const std::string& k) {
    auto it = form.find(k);
    return it == form.end() ? std::string() : it->second;
  };
  if (method == "POST" && path == "/token") {
    ++tokenRequests_;
    if (failWith_) return {failWith_, error("server_error", "the provider is failing on purpose")};
    if (authorization.rfind("Basic ", 0) != 0 ||
        fromBase64(authorization.substr(6)) != clientId_ + ":" + clientSecret_)
      return {401, error("invalid_client", "client authentication failed")};
    if (field("grant_type") != "authorization_code")
      return {400, error("unsupported_grant_type", field("grant_type"))};
    auto it = codes_.find(field("code"));
    if (it == codes_.end() || it->second.used)
      return {400, error("invalid_grant", "the code is unknown or was already used")};
    it->second.used = true;  // spent even when the rest fails, as a real provider does
    if (it->second.redirectUri != field("redirect_uri"))
      return {400, error("invalid_grant", "redirect_uri does not match")};
    auto digest = crypto::sha256(field("code_verifier"));
    if (base64UrlEncode(Bytes(digest.begin(), digest.end())) != it->second.challenge)
      return {400, error("invalid_grant", "the code_verifier does not match the challenge")};
    std::string token = "access-" + crypto::uuidV4();
    tokens_[token] = it->second.userId;
    lastAccessToken_ = token;
    json::Object o = json::object();
    o->set("access_token", token);
    o->set("token_type", "bearer");
    o->set("expires_in", 7200);
    return {200, json::stringify(o)};
  }
  if (method == "GET" && (path == "/x/users/me" || path == "/discord/users/@me")) {
    auto it = authorization.rfind("Bearer ", 0) == 0 ? tokens_.find(authorization.substr(7))
                                                     : tokens_.end();
    if (it == tokens_.end()) return {401, error("invalid_token", "unknown access token")};
    json::Object user = json::object();
    user->set("id", it->second);
    user->set("username", "user" + it->second);
    if (path == "/discord/users/@me") return {200, json::stringify(user)};
    json::Object wrapped = json::object();
    wrapped->set("data", user);
    return {200, json::stringify(wrapped)};
  }
  return {404, error("not_found", path)};
}

}  // namespace signet::test
