// An OpenID Connect issuer on loopback, as Google or Auth0 would be for the gateway: a discovery
// document, a JWKS with RS256 and ES256 keys, and ID tokens it signs. It can rotate its keys,
// answer slowly (until released, or 10 s) and go down (its port refuses connections).
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "signet/json.hpp"

namespace signet::test {

class OidcIssuer {
 public:
  // `https`: serve over TLS with a fresh self-signed certificate (certificate()); the issuer is
  // then https://127.0.0.1:PORT.
  explicit OidcIssuer(bool https = false);
  ~OidcIssuer();

  const std::string& url() const { return url_; }  // the issuer (iss), http://127.0.0.1:PORT
  const std::filesystem::path& certificate() const { return cert_; }

  // A token with these claims, signed by the issuer's current key for `alg` (RS256 or ES256).
  std::string sign(const json::Object& claims, const std::string& alg = "RS256") const;
  // The usual ID token: iss, sub, aud, nonce, iat now and exp in 10 minutes (`nowMs` 0: the
  // system clock).
  std::string idToken(const std::string& subject, const std::string& audience,
                      const std::string& nonce, const std::string& alg = "RS256",
                      int64_t nowMs = 0) const;
  // A token signed by a key the JWKS never publishes (its kid stays unknown).
  std::string signWithUnpublishedKey(const json::Object& claims) const;

  void rotate();                      // new keys replace the published ones
  void setCacheSeconds(int seconds);  // Cache-Control max-age of the JWKS (0: none)
  void holdAnswers();                 // answer only after release(), or after 10 s
  void release();
  void goDown();            // stop listening
  int jwksFetches() const;  // how many times the JWKS was served

  // For the request handler.
  std::string answer(const std::string& path, std::string& cacheControl, int& status);
  void waitWhileHeld();

  struct Key;

  // plugins.settings.sessions for a gateway that trusts `issuers` over plain HTTP (they are on
  // loopback), with a 1 s budget for fetching their keys.
  static json::Object sessionsSettingsTrusting(const std::vector<const OidcIssuer*>& issuers);

 private:
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::filesystem::path dir_, cert_;
  std::string url_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::shared_ptr<Key>> keys_;  // published
  std::shared_ptr<Key> unpublished_;
  int generation_ = 0;
  int cacheSeconds_ = 300;
  int jwksFetches_ = 0;
  bool holding_ = false;
};

}  // namespace signet::test
