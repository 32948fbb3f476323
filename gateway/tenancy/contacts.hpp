// Users' contact details: email and E.164 phone validation, and the OTP verification tokens
// that prove a contact (issued by the gateway signer after verify_otp).
#pragma once

#include <optional>
#include <string>

#include "signet/contacts.hpp"
#include "signet/plugin.hpp"

namespace signet::contacts {

using signet::validateEmail;
using signet::validatePhoneNumber;

using signet::VerifiedContact;

// What a token is spent on. A token serves one use of each kind: the client signatures that
// go with it name the usage (TokenUsage, USAGE_TYPE_SIGNUP or USAGE_TYPE_LOGIN), and
// @turnkey/core's signUpWithOtp signs up with a token and then logs in with the same one.
enum class TokenUse {
  kLogin,   // logins, and proving a contact on an existing user
  kSignup,  // create_sub_organization
};

// Checks a verification token: signed by this gateway's signer, not expired (exp is in
// milliseconds), issued for `organizationId` or its parent (a parent's token works in its
// sub-organizations), and not spent on `use` before. InvalidArgument naming `field`.
VerifiedContact checkVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field, TokenUse use = TokenUse::kLogin);
// Marks a checked token spent on `use`.
void spend(RequestContext& ctx, const VerifiedContact& token, const std::string& field,
           TokenUse use = TokenUse::kLogin);
// Both.
VerifiedContact spendVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field, TokenUse use = TokenUse::kLogin);

// Whether `contact` (of a token) is this email / phone number.
bool sameContact(const VerifiedContact& v, const std::string& type, const std::string& value);

}  // namespace signet::contacts
