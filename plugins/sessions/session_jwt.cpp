#include "session_jwt.hpp"

#include "signet/jwt.hpp"

namespace sessions {

using namespace signet;

std::string signSessionJwt(RequestContext& ctx, const SessionClaims& c) {
  auto field = [](const char* name, const std::string& value) {
    return std::string(",\"") + name + "\":" + jwt::atobSafeJsonString(value);
  };
  // Built by hand so that the payload stays ASCII without '>', '?' or '~' (atob-safe) and
  // keeps the claim order of the hosted service's tokens.
  std::string claims = "{\"exp\":" + std::to_string(c.expiresAtSeconds) +
                       field("public_key", c.publicKey) + field("session_type", c.sessionType) +
                       field("user_id", c.userId) + field("organization_id", c.organizationId);
  if (c.sessionProfileId) claims += field("session_profile_id", *c.sessionProfileId);
  if (c.scope) claims += field("scope", *c.scope);
  claims += "}";
  return jwt::signEs256(ctx.gatewaySigner(), R"({"alg":"ES256","typ":"JWT"})", claims,
                        jwt::Hashing::kDoubleSha256);
}

}  // namespace sessions
