// Contact details as the coordinator API takes them: an email address, or an E.164 phone
// number (the OTP and user activities of the core and of plugins check them alike).
#pragma once

#include <string>

namespace signet {

// Trimmed and checked; InvalidArgument naming `field` otherwise.
std::string validateEmail(const std::string& email, const std::string& field);
std::string validatePhoneNumber(const std::string& phone, const std::string& field);

// The mailbox an email address reaches, for counting what is sent to it (OTP limits): lower-cased,
// the local part's quotes removed and its +tag dropped, since victim+1@example.com and
// "victim"@example.com reach victim@example.com at most providers. Not an address to send to.
std::string mailboxKey(const std::string& email);

}  // namespace signet
