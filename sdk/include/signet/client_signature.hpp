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

// The auth proxy specification's form of a login's proof (`client_signature` on /v1/otp_login):
// the key bound to the token at otp_verify signs the verification token itself: SHA-256 of the
// token's text, signed, in hex as raw r‖s or DER (either is accepted, in both forms). `signature`
// is a v1ClientSignature whose message is `tokenText`; it is checked against `boundKey` (hex), the
// token's key, whatever its own publicKey says. The message names no session key, so the caller
// must log in the bound key only. InvalidArgument naming the field.
void checkTokenSignature(const json::Object& signature, const std::string& boundKey,
                         const std::string& tokenText, const std::string& field);

}  // namespace signet
