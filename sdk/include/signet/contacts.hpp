// Contact details as the coordinator API takes them: an email address, or an E.164 phone
// number (the OTP and user activities of the core and of plugins check them alike).
#pragma once

#include <string>

namespace signet {

// Trimmed and checked; InvalidArgument naming `field` otherwise.
std::string validateEmail(const std::string& email, const std::string& field);
std::string validatePhoneNumber(const std::string& phone, const std::string& field);

}  // namespace signet
