// X-Stamp-Attested (tkhq/sdk packages/core, the attested stamper): base64url JSON
// {publicKeyAttestation, scheme, publicKey, signature}. The session key signs the body (DER hex,
// P-256, SHA-256) and the attestation vouches for the key: an OTP verification token issued by
// this gateway, whose public_key claim must be the stamp's key, or an OIDC ID token whose nonce
// binds it to the key. Clients send it on stamp_login and the
// get_activity polls after it, and on approve_activity to present an email or SMS OTP factor for
// MFA.
#pragma once

#include <string>
#include <string_view>

namespace signet {

inline constexpr const char* kAttestedTokenScheme = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN";
// The attestation is an OpenID Connect ID token whose nonce is the SHA-256 of the stamp's key
// (jwt::oidcNonce); it identifies the user by one of their OAuth providers.
inline constexpr const char* kAttestedOidcScheme = "STAMP_ATTESTED_SCHEME_P256_OIDC";

struct AttestedStamp {
  std::string scheme;  // kAttestedTokenScheme or kAttestedOidcScheme
  std::string token;
  std::string publicKey;  // compressed P-256 hex
};

// Checks the header's shape, scheme and body signature. Throws Unauthenticated.
AttestedStamp verifyAttestedStamp(const std::string& header, std::string_view body);

// Whether an attested stamp may authenticate this API path (submit/<op> or query/<op>).
bool attestedStampAllowedOn(const std::string& path);

}  // namespace signet
