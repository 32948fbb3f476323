// The signing keys of OpenID Connect issuers, fetched from each issuer's discovery document
// (OpenID Connect Discovery 1.0: <iss>/.well-known/openid-configuration) and its jwks_uri
// (RFC 7517), and kept for the JWKS answer's Cache-Control max-age.
//
// Only issuers someone chose are fetched (oidc_verifier.hpp decides which, before asking here),
// and every fetch goes through the egress policy (signet/egress.hpp): public addresses only,
// unless the operator listed the issuer in insecureIssuers; one deadline for discovery and keys
// together. Fetches happen only where the caller allows them (outside any transaction).
//
// One fetch per issuer at a time: a request that needs keys another request is fetching is told
// to try again (503) rather than held, so that no request thread waits on an issuer beyond the
// egress bounds. An issuer that could not be fetched is not asked again for a few seconds, so
// a down issuer costs a flood nothing but answers.
//
// What a client is told of a failure is only that the issuer's keys are unavailable: what the
// network answered (refused, timed out, a certificate error) goes to the gateway's log, so that
// the gateway cannot be used to probe what its network holds.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "settings.hpp"
#include "signet/encoding.hpp"
#include "signet/error.hpp"

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
  // Error (kUnavailable, "issuer keys unavailable") when they cannot be had now.
  std::optional<Jwk> key(const std::string& issuer, const std::string& kid, int64_t nowMs,
                         bool mayFetch);

  // How long a failed fetch is remembered, from its end, before the issuer is asked again.
  static constexpr std::chrono::seconds kFailureHold{5};

 private:
  struct Entry {
    std::map<std::string, Jwk> keys;
    int64_t expiresAtMs = 0;
    int64_t fetchedAtMs = 0;
    std::chrono::steady_clock::time_point failedUntil;  // no fetch before it
    bool fetched = false;
    bool fetching = false;  // a request is fetching now
  };
  std::shared_ptr<Entry> entryOf(const std::string& issuer);
  std::optional<Jwk> lookup(Entry& e, const std::string& kid) const;
  bool stale(const Entry& e, int64_t nowMs) const { return !e.fetched || nowMs >= e.expiresAtMs; }
  std::map<std::string, Jwk> fetch(const std::string& issuer, int64_t& cacheSeconds);

  const OidcSettings& settings_;
  std::mutex mutex_;  // guards entries_ and every entry
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

// The error a client sees when an issuer's keys cannot be had: the same whatever the cause, with
// the wait before the issuer is asked again as its Retry-After.
signet::Error issuerKeysUnavailable(const std::string& issuer,
                                    std::chrono::steady_clock::duration wait);

}  // namespace sessions
