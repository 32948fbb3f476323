// WebAuthn registration (v1AuthenticatorParamsV2): checks the client data of the
// webauthn.create ceremony against the challenge, parses the CBOR attestation object and
// takes the credential's public key from its COSE key. Attestation statements are recorded
// (their format) but not verified: the hosted service's rules for them are not published,
// and conveyance is "none" by default in every official client.
#pragma once

#include <string>
#include <vector>

#include "signet/typed_parameters.hpp"
#include "tenancy/directory.hpp"

namespace signet {

// v1AuthenticatorParamsV2, as every activity that registers a passkey takes it.
struct AttestationParameters {
  std::string credentialId, clientDataJson, attestationObject;  // base64url
  std::optional<std::vector<std::string>> transports;           // AUTHENTICATOR_TRANSPORT_*
};
struct AuthenticatorParameters {
  std::string authenticatorName, challenge;
  AttestationParameters attestation;
};
// Made on first use: other files' shapes nest it (typed_parameters.hpp).
const Shape<AuthenticatorParameters>& authenticatorShape();

// Fills credential id, algorithm, public key, aaguid, transports, attestation type and sign
// counter of `record` from `params`. Throws InvalidArgument naming `field` (where the
// parameters sit in the intent) and the check that failed.
void parseAuthenticatorParams(const AuthenticatorParameters& params, const std::string& field,
                              AuthenticatorRecord& record);

}  // namespace signet
