// What an OAuth 2.0 provider said about a code, handed from oauth2_authenticate's preparer
// (which talks to the provider outside the write lock) to its handler (signet/handoff.hpp).
#pragma once

#include <string>

#include "signet/crypto.hpp"
#include "signet/handoff.hpp"

namespace sessions {

struct ExchangedCode {
  std::string subject;  // <provider>:<user id>
  signet::crypto::SecretBytes bearerToken;
};

using OAuth2Exchanges = signet::Handoff<ExchangedCode>;

}  // namespace sessions
