// Passkeys: create_authenticators (V2), delete_authenticators, get_authenticator,
// get_authenticators.
#pragma once

#include "auth/attestation.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::authenticators {
struct CreateAuthenticatorsParameters {
  std::string userId;
  std::vector<AuthenticatorParameters> authenticators;
};
extern const Shape<CreateAuthenticatorsParameters> kCreateAuthenticators;
json::Object createAuthenticators(ActivityContext& ctx,
                                  const CreateAuthenticatorsParameters& params);
struct DeleteAuthenticatorsParameters {
  std::string userId;
  std::vector<std::string> authenticatorIds;
};
extern const Shape<DeleteAuthenticatorsParameters> kDeleteAuthenticators;
json::Object deleteAuthenticators(ActivityContext& ctx,
                                  const DeleteAuthenticatorsParameters& params);
struct RecoverUserParameters {
  std::string userId;
  AuthenticatorParameters authenticator;
};
extern const Shape<RecoverUserParameters> kRecoverUser;
json::Object recoverUser(ActivityContext& ctx, const RecoverUserParameters& params);
json::Object getAuthenticator(RequestContext& ctx, const json::Object& body);
json::Object getAuthenticators(RequestContext& ctx, const json::Object& body);
}  // namespace signet::authenticators
