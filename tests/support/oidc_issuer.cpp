#include "support/oidc_issuer.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/ServerSocket.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <chrono>
#include <stdexcept>

#include "gateway.hpp"
#include "signet/crypto.hpp"
#include "signet/encoding.hpp"
#include "support/test_certificate.hpp"

namespace signet::test {

struct OidcIssuer::Key {
  std::string kid;
  std::string alg;
  EVP_PKEY* rsa = nullptr;  // RS256
  crypto::SecretBytes ec;   // ES256
  ~Key() { EVP_PKEY_free(rsa); }

  static std::shared_ptr<Key> make(const std::string& kid, const std::string& alg) {
    auto k = std::make_shared<Key>();
    k->kid = kid;
    k->alg = alg;
    if (alg == "RS256") {
      k->rsa = EVP_RSA_gen(2048);
      if (!k->rsa) throw std::runtime_error("RSA key generation failed");
    } else {
      k->ec = crypto::generatePrivateKey(crypto::Curve::kP256);
    }
    return k;
  }

  std::string signature(const std::string& text) const {
    if (alg == "ES256") {
      auto sig = crypto::signEcdsa(crypto::Curve::kP256, ec, crypto::sha256(text));
      Bytes raw(sig.r.begin(), sig.r.end());
      raw.insert(raw.end(), sig.s.begin(), sig.s.end());
      return base64UrlEncode(raw);
    }
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    size_t size = 0;
    Bytes out;
    if (EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, rsa) == 1 &&
        EVP_DigestSign(md, nullptr, &size, reinterpret_cast<const uint8_t*>(text.data()),
                       text.size()) == 1) {
      out.resize(size);
      EVP_DigestSign(md, out.data(), &size, reinterpret_cast<const uint8_t*>(text.data()),
                     text.size());
      out.resize(size);
    }
    EVP_MD_CTX_free(md);
    if (out.empty()) throw std::runtime_error("RSA signing failed");
    return base64UrlEncode(out);
  }

  json::Object jwk() const {
    json::Object o = json::object();
    o->set("kid", kid);
    o->set("alg", alg);
    o->set("use", "sig");
    if (alg == "RS256") {
      o->set("kty", "RSA");
      for (const auto& [param, name] :
           {std::pair{OSSL_PKEY_PARAM_RSA_N, "n"}, std::pair{OSSL_PKEY_PARAM_RSA_E, "e"}}) {
        BIGNUM* bn = nullptr;
        EVP_PKEY_get_bn_param(rsa, param, &bn);
        Bytes b(static_cast<size_t>(BN_num_bytes(bn)));
        BN_bn2bin(bn, b.data());
        BN_free(bn);
        o->set(name, base64UrlEncode(b));
      }
    } else {
      Bytes point = crypto::uncompressPublicKey(
          crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, ec));
      o->set("kty", "EC");
      o->set("crv", "P-256");
      o->set("x", base64UrlEncode(Bytes(point.begin() + 1, point.begin() + 33)));
      o->set("y", base64UrlEncode(Bytes(point.begin() + 33, point.end())));
    }
    return o;
  }
};

namespace {
std::string signWith(const OidcIssuer::Key& key, const json::Object& claims) {
  json::Object header = json::object();
  header->set("alg", key.alg);
  header->set("typ", "JWT");
  header->set("kid", key.kid);
  std::string text =
      base64UrlEncode(json::stringify(header)) + "." + base64UrlEncode(json::stringify(claims));
  return text + "." + key.signature(text);
}

class Handler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(OidcIssuer& issuer) : issuer_(issuer) {}
  void handleRequest(Poco::Net::HTTPServerRequest& req,
                     Poco::Net::HTTPServerResponse& res) override {
    issuer_.waitWhileHeld();
    std::string cacheControl;
    int status = 200;
    std::string body = issuer_.answer(req.getURI(), cacheControl, status);
    res.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    res.setContentType("application/json");
    if (!cacheControl.empty()) res.set("Cache-Control", cacheControl);
    res.sendBuffer(body.data(), body.size());
  }

 private:
  OidcIssuer& issuer_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(OidcIssuer& issuer) : issuer_(issuer) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(issuer_);
  }

 private:
  OidcIssuer& issuer_;
};
}  // namespace

OidcIssuer::OidcIssuer(bool https) {
  rotate();
  unpublished_ = Key::make("never-published", "RS256");
  Poco::Net::SocketAddress address("127.0.0.1", 0);
  if (https) {
    dir_ = std::filesystem::temp_directory_path() / ("signet-issuer-" + crypto::uuidV4());
    std::filesystem::create_directories(dir_);
    cert_ = dir_ / "cert.pem";
    makeSelfSignedCertificate(cert_, dir_ / "key.pem");
    Poco::Net::Context::Ptr context =
        new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, (dir_ / "key.pem").string(),
                               cert_.string(), "", Poco::Net::Context::VERIFY_NONE);
    Poco::Net::SecureServerSocket socket(address, 64, context);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket,
                                                      new Poco::Net::HTTPServerParams);
  } else {
    Poco::Net::ServerSocket socket(address);
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), socket,
                                                      new Poco::Net::HTTPServerParams);
  }
  server_->start();
  url_ = std::string(https ? "https" : "http") + "://127.0.0.1:" + std::to_string(server_->port());
}

OidcIssuer::~OidcIssuer() {
  release();
  if (server_) server_->stopAll(true);
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

json::Object OidcIssuer::sessionsSettingsTrusting(const std::vector<const OidcIssuer*>& issuers) {
  std::vector<std::string> urls;
  for (const auto* i : issuers) urls.push_back(i->url());
  json::Object oidc = json::object();
  oidc->set("insecureIssuers", json::stringArray(urls));
  oidc->set("timeoutSeconds", "1");
  json::Object settings = json::object();
  settings->set("oidc", oidc);
  return settings;
}

void OidcIssuer::rotate() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++generation_;
  std::string g = std::to_string(generation_);
  keys_ = {Key::make("rsa-" + g, "RS256"), Key::make("ec-" + g, "ES256")};
}

std::string OidcIssuer::sign(const json::Object& claims, const std::string& alg) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& k : keys_)
    if (k->alg == alg) return signWith(*k, claims);
  throw std::runtime_error("no key for " + alg);
}

std::string OidcIssuer::signWithUnpublishedKey(const json::Object& claims) const {
  return signWith(*unpublished_, claims);
}

std::string OidcIssuer::idToken(const std::string& subject, const std::string& audience,
                                const std::string& nonce, const std::string& alg,
                                int64_t nowMs) const {
  int64_t now = (nowMs ? nowMs : systemNowMs()) / 1000;
  json::Object claims = json::object();
  claims->set("iss", url_);
  claims->set("sub", subject);
  claims->set("aud", audience);
  claims->set("nonce", nonce);
  claims->set("iat", now);
  claims->set("exp", now + 600);
  return sign(claims, alg);
}

void OidcIssuer::setCacheSeconds(int seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  cacheSeconds_ = seconds;
}

void OidcIssuer::holdAnswers() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = true;
}

void OidcIssuer::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = false;
  changed_.notify_all();
}

void OidcIssuer::goDown() {
  release();
  server_->stopAll(true);
  server_.reset();
}

int OidcIssuer::jwksFetches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jwksFetches_;
}

void OidcIssuer::waitWhileHeld() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, std::chrono::seconds(10), [&] { return !holding_; });
}

std::string OidcIssuer::answer(const std::string& path, std::string& cacheControl, int& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (path == "/.well-known/openid-configuration") {
    json::Object d = json::object();
    d->set("issuer", url_);
    d->set("jwks_uri", url_ + "/jwks");
    return json::stringify(d);
  }
  if (path == "/jwks") {
    ++jwksFetches_;
    if (cacheSeconds_ > 0) cacheControl = "public, max-age=" + std::to_string(cacheSeconds_);
    json::Array keys = json::array();
    for (const auto& k : keys_) keys->add(k->jwk());
    json::Object o = json::object();
    o->set("keys", keys);
    return json::stringify(o);
  }
  status = 404;
  return "{}";
}

}  // namespace signet::test
