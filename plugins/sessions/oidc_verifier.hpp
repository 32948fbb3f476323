// Verifying OpenID Connect ID tokens (OpenID Connect Core 1.0 §3.1.3.7): the signature under the
// issuer's published key (RS256 or ES256, RFC 7518 §3.3 and §3.4), the time claims with 60 s of
// leeway, and the issuer against the operator's list. Audience and nonce depend on what the
// token is for and are left to the caller.
#pragma once

#include "oidc_keys.hpp"
#include "signet/plugin.hpp"

namespace sessions {

inline constexpr int64_t kOidcLeewaySeconds = 60;

// Tokens whose issuer is this gateway (`self.publicUrl`, from oauth2_authenticate) are checked
// against its own issuer key, without a fetch.
signet::OidcIdentity verifyIdToken(OidcKeyCache& keys, const OidcSettings& settings,
                                   const signet::GatewayFacts& self, const std::string& token,
                                   const std::string& field, int64_t nowMs, bool mayFetch);

// The caller's checks: `audiences` must include one of `accepted` (when not empty), and the
// token's nonce must bind it to `publicKey` (compressed P-256 hex). InvalidArgument naming
// `field` otherwise.
void requireNonceFor(const signet::OidcIdentity& id, const std::string& publicKey,
                     const std::string& field);

}  // namespace sessions
