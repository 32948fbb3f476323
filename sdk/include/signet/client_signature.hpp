// The clientSignature of logins and sign-ups that spend an OTP verification token
// (tkhq/sdk packages/core getClientSignatureMessageForLogin/Signup): the token's own key signs
// {"login"|"signupV2": …, "tokenId": …, "type": "USAGE_TYPE_LOGIN"|"USAGE_TYPE_SIGNUP"} as raw r‖s
// hex over SHA-256 of the message.
#pragma once

#include "signet/plugin.hpp"

namespace signet {

// Checks `signature` (a v1ClientSignature at `field`) for `usageType` against `token`; returns
// the parsed message so the caller can check its usage fields. InvalidArgument naming the field.
json::Object checkClientSignature(const json::Object& signature, const VerifiedContact& token,
                                  const std::string& usageType, const std::string& field);

}  // namespace signet
