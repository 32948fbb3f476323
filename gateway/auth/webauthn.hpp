// X-Stamp-WebAuthn: a WebAuthn assertion whose challenge is the ASCII of
// lowercase hex(SHA-256(body)). Checked as WebAuthn §7.2 prescribes: client data type and
// challenge, rpIdHash (when relying-party ids are configured), user presence, sign counter,
// and the ES256 or RS256 signature over authenticatorData ‖ SHA-256(clientDataJSON).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "signet/encoding.hpp"
#include "tenancy/directory.hpp"

namespace signet {

struct WebAuthnStamp {
  std::string credentialId;  // base64url (no padding) of the raw id, as stored
  Bytes authenticatorData;
  Bytes clientDataJson;
  Bytes signature;
};

// Parses the header (plain JSON; values base64url or base64). Throws Unauthenticated.
WebAuthnStamp parseWebAuthnStamp(const std::string& header);

// The challenge a client puts in clientDataJSON for this body.
std::string webauthnChallenge(std::string_view body);

// Verifies the assertion against a stored authenticator; returns the new sign counter.
// Throws Unauthenticated naming the failed check.
int64_t verifyAssertion(const WebAuthnStamp& stamp, const AuthenticatorRecord& authenticator,
                        std::string_view body, const std::vector<std::string>& rpIds);

}  // namespace signet
