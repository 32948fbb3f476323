// Session JWTs (as tkhq/sdk parseSession reads them): {"alg":"ES256","typ":"JWT"}, claims exp
// (seconds), public_key, session_type, user_id, organization_id and, with a session profile,
// session_profile_id and scope; signed by the gateway signer over SHA-256(SHA-256(header.payload)),
// raw r‖s.
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace sessions {

struct SessionClaims {
  int64_t expiresAtSeconds = 0;
  std::string publicKey;  // compressed P-256 hex
  std::string sessionType;
  std::string userId;
  std::string organizationId;
  std::optional<std::string> sessionProfileId;
  std::optional<std::string> scope;
};

std::string signSessionJwt(signet::RequestContext& ctx, const SessionClaims& claims);

}  // namespace sessions
