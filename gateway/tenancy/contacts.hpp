// Users' contact details: email and E.164 phone validation, and the OTP verification tokens
// that prove a contact (issued by the gateway signer after verify_otp).
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace signet::contacts {

// Trimmed and checked; InvalidArgument naming `field` otherwise.
std::string validateEmail(const std::string& email, const std::string& field);
std::string validatePhoneNumber(const std::string& phone, const std::string& field);

struct VerifiedContact {
  std::string tokenId;
  std::string type;     // OTP_TYPE_EMAIL or OTP_TYPE_SMS
  std::string contact;  // the address or number the code went to
  std::optional<std::string> publicKey;
};

// Checks a verification token: signed by this gateway's signer, not expired (exp is in
// milliseconds), issued for `organizationId` or its parent (a parent's token works in its
// sub-organizations), and not spent before. Spends it. InvalidArgument naming `field`.
VerifiedContact spendVerificationToken(RequestContext& ctx, const std::string& token,
                                       const std::string& organizationId,
                                       const std::optional<std::string>& parentId,
                                       const std::string& field);

// Whether `contact` (of a token) is this email / phone number.
bool sameContact(const VerifiedContact& v, const std::string& type, const std::string& value);

}  // namespace signet::contacts
