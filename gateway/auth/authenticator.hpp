// The authenticate step of every stamped request, a query, a submission and a stamped plugin
// route alike: stamp -> credential -> user -> organization. It has two halves with a type
// between them, because the body is parsed in between:
// 1. `present` reads the stamp headers and verifies an X-Stamp's signature over the exact bytes
//    received, before anything parses them;
// 2. `resolve` finds the stamp's credential for the organization the parsed body names,
//    verifies a passkey's or an attested stamp's signature against what is stored there,
//    applies the key's IP allowlist and charges the organization's rate.
// Only `present` makes a PresentedStamp, so no credential is resolved from a stamp whose
// signature was not checked.
// A credential resolves when it is registered in the organization the request targets or in
// that organization's parent (a parent's users act on their sub-organizations). Every refusal
// names both organizations involved.
#pragma once

#include "auth/stamp_check.hpp"
#include "config/config.hpp"
#include "server/http_request.hpp"
#include "server/rate_limiter.hpp"
#include "signet/plugin.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet {

// The message clients match on to detect an unknown or expired session key.
inline constexpr const char* kUnknownKeyMessage =
    "could not find public key in organization or its parent organization";
inline constexpr const char* kExpiredKeyMessage =
    "Unauthenticated desc = expired api key publicKey";

// Who is asking, and the organization the request acts in: the target, or, when the
// credential was found below it, the sub-organization that holds it.
struct Resolution {
  Caller caller;
  std::string organizationId;
  // A service key's own budget (ApiKeyRecord::rateBudget); empty: the organization's.
  std::string rateBudget = {};
};

// A request's stamp, checked as far as it can be without the store: its headers, one of each,
// within the size limit, and an X-Stamp's signature verified over `body`. It refers to the
// request's body, which must outlive it.
class PresentedStamp {
 public:
  PresentedStamp(PresentedStamp&&) = default;
  PresentedStamp& operator=(PresentedStamp&&) = default;
  PresentedStamp(const PresentedStamp&) = delete;  // one per request, made by `present` alone
  PresentedStamp& operator=(const PresentedStamp&) = delete;

  const StampHeaders& headers() const { return headers_; }
  const std::optional<VerifiedApiKeyStamp>& apiKey() const { return apiKey_; }  // an X-Stamp
  std::string_view body() const { return body_; }

 private:
  friend class Authenticator;
  PresentedStamp(StampHeaders headers, std::optional<VerifiedApiKeyStamp> apiKey,
                 std::string_view body)
      : headers_(std::move(headers)), apiKey_(std::move(apiKey)), body_(body) {}

  StampHeaders headers_;
  std::optional<VerifiedApiKeyStamp> apiKey_;
  std::string_view body_;
};

class Authenticator {
 public:
  // `rates`: what each organization may request (limits.rateLimit.perOrganizationPerSecond);
  // `serviceRates`: what a service key (the auth proxy's) may request for its organization,
  // charged instead, never beside (limits.rateLimit.perAuthProxyPerSecond).
  // `services`: what the enabled modules offer (an OIDC-attested stamp needs the verifier).
  // `cache`: the gateway's directory cache, which API-key resolutions read through.
  Authenticator(const Config& config, std::string signerPublicKey, RateLimiter& rates,
                RateLimiter& serviceRates, const Services& services, DirectoryCache& cache)
      : config_(config),
        signerPublicKey_(std::move(signerPublicKey)),
        rates_(rates),
        serviceRates_(serviceRates),
        services_(services),
        cache_(cache) {}

  // The first half: the request's stamp headers, an X-Stamp verified over the body. Throws
  // Unauthenticated for a request that is not stamped or whose X-Stamp does not verify, and
  // InvalidArgument for a stamp header that is repeated or over limits.maxHeaderBytes.
  PresentedStamp present(const HttpRequestData& request) const;

  // Where resolve reads the directory: through the cache, or, inside a write transaction
  // (whose own uncommitted writes the cache cannot know), from the store alone.
  enum class Reads { kCached, kStore };

  // The second half: the caller `stamp` authenticates for `targetOrganizationId`. Passkeys also
  // resolve downward: a request that names the parent while the passkey lives in one of its
  // sub-organizations acts in that sub-organization (clients that do not know the
  // sub-organization's id do this); API keys do so only when `apiKeysDownward` (whoami). Throws
  // Unauthenticated or NotFound, and ResourceExhausted (429) past the organization's rate. The rate
  // is charged only once the credential resolved, so that no one can spend another organization's
  // allowance; a sub-organization's request counts against a bucket its parent's sub-organizations
  // share too, but not against the parent's own.
  Resolution resolve(Db& db, const PresentedStamp& stamp, const std::string& targetOrganizationId,
                     int64_t nowMs, bool apiKeysDownward = false,
                     Reads reads = Reads::kCached) const;
  // The same, reading through a view the request goes on reading with (a snapshot's), so that
  // the directory's generation is read once for the whole request.
  Resolution resolve(DirectoryView& directory, const PresentedStamp& stamp,
                     const std::string& targetOrganizationId, int64_t nowMs,
                     bool apiKeysDownward = false) const;

 private:
  Resolution resolveCaller(Db& db, DirectoryView& directory, const PresentedStamp& stamp,
                           const OrganizationRecord& target, int64_t nowMs,
                           bool apiKeysDownward) const;
  void chargeRate(const Resolution& who, const std::optional<std::string>& parentId,
                  int64_t nowMs) const;
  Resolution resolveAttested(Db& db, DirectoryView& directory, const std::string& header,
                             std::string_view body, const OrganizationRecord& target,
                             int64_t nowMs) const;
  Resolution resolveOidcAttested(Db& db, DirectoryView& directory,
                                 const struct AttestedStamp& stamp,
                                 const OrganizationRecord& target, int64_t nowMs) const;

  const Config& config_;
  std::string signerPublicKey_;  // verification tokens of attested stamps are checked with it
  RateLimiter& rates_;
  RateLimiter& serviceRates_;
  const Services& services_;
  DirectoryCache& cache_;
};

}  // namespace signet
