// WebAuthn registration (v1AuthenticatorParamsV2): checks the client data of the
// webauthn.create ceremony against the challenge, parses the CBOR attestation object and
// takes the credential's public key from its COSE key. Attestation statements are recorded
// (their format) but not verified: the hosted service's rules for them are not published,
// and conveyance is "none" by default in every official client.
#pragma once

#include <string>

#include "signet/json.hpp"
#include "tenancy/directory.hpp"

namespace signet {

// Fills credential id, algorithm, public key, aaguid, transports, attestation type and sign
// counter of `record` from `params` (v1AuthenticatorParamsV2). Throws InvalidArgument naming
// `field` and the check that failed.
void parseAuthenticatorParams(const json::Object& params, const std::string& field,
                              AuthenticatorRecord& record);

}  // namespace signet
