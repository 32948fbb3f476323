// Verifying OpenID Connect ID tokens (OpenID Connect Core 1.0 §3.1.3.7): the issuer against
// the issuers someone chose, the signature under the issuer's published key (RS256 or ES256,
// RFC 7518 §3.3 and §3.4), and the time claims with 60 s of leeway. Audience and nonce depend on
// what the token is for and are left to the caller.
//
// Which issuers are trusted, checked before anything is fetched (a token is anyone's to make up,
// and its `iss` would otherwise send the gateway wherever its maker likes):
//   - this gateway's own issuer (oauth2_authenticate's tokens, X and Discord sign-ins), checked
//     against its own key without a fetch;
//   - with oidc.allowedIssuers set, those alone;
//   - otherwise oidc.trustedIssuers (`signet init` writes the public providers the SDKs offer:
//     Google, Apple, Facebook), oidc.insecureIssuers, and the issuer of any OAuth provider an
//     organization of this gateway has stored.
#pragma once

#include "oidc_keys.hpp"
#include "signet/plugin.hpp"

namespace sessions {

inline constexpr int64_t kOidcLeewaySeconds = 60;

// `storedIssuer`: whether an organization has stored an OAuth provider of that issuer.
// InvalidArgument ("issuer not trusted") for any other issuer, before any network call.
signet::OidcIdentity verifyIdToken(OidcKeyCache& keys, const OidcSettings& settings,
                                   const signet::GatewayFacts& self,
                                   const std::function<bool(const std::string&)>& storedIssuer,
                                   const std::string& token, const std::string& field,
                                   int64_t nowMs, bool mayFetch);

// The caller's checks: `audiences` must include one of `accepted` (when not empty), and the
// token's nonce must bind it to `publicKey` (compressed P-256 hex). InvalidArgument naming
// `field` otherwise.
void requireNonceFor(const signet::OidcIdentity& id, const std::string& publicKey,
                     const std::string& field);

}  // namespace sessions
