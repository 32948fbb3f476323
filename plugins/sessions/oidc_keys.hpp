// The signing keys of OpenID Connect issuers, fetched from each issuer's discovery document
// (OpenID Connect Discovery 1.0: <iss>/.well-known/openid-configuration) and its jwks_uri
// (RFC 7517), and kept for the JWKS answer's Cache-Control max-age.
//
// Fetches happen only where the caller allows them (outside any transaction). One issuer's
// fetch is serialized on its own lock, so a slow issuer holds up only the requests that need
// its keys, each for at most the configured timeout.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "settings.hpp"
#include "signet/encoding.hpp"

namespace sessions {

struct Jwk {
  std::string kid;
  std::string kty;                  // RSA or EC
  std::string alg;                  // as published; may be empty
  signet::Bytes modulus, exponent;  // RSA
  signet::Bytes point;              // EC P-256, uncompressed 04‖x‖y
};

class OidcKeyCache {
 public:
  explicit OidcKeyCache(const OidcSettings& settings) : settings_(settings) {}

  // The key `kid` of `issuer` (the only key, when `kid` is empty and the issuer has one).
  // With `mayFetch`, keys are fetched when none are cached or they have expired, and refreshed
  // for an unknown kid at most once per refresh interval. nullopt: the kid is unknown. Throws
  // Error (kUnavailable) when the issuer cannot be reached or answers nonsense, naming it.
  std::optional<Jwk> key(const std::string& issuer, const std::string& kid, int64_t nowMs,
                         bool mayFetch);

 private:
  struct Entry {
    std::mutex fetching;  // one fetch per issuer at a time
    std::map<std::string, Jwk> keys;
    int64_t expiresAtMs = 0;
    int64_t fetchedAtMs = 0;
    bool fetched = false;
  };
  std::shared_ptr<Entry> entryOf(const std::string& issuer);
  std::optional<Jwk> lookup(Entry& e, const std::string& kid, int64_t nowMs, bool& stale);
  void fetch(const std::string& issuer, Entry& e, int64_t nowMs);

  const OidcSettings& settings_;
  std::mutex mutex_;  // guards entries_ and every entry's keys
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

}  // namespace sessions
