// oauth2_authenticate: a login with an OAuth 2.0 provider that has no OpenID Connect (X,
// Discord). The preparer exchanges the code with PKCE at the provider's token endpoint (RFC 6749
// §4.1.3, RFC 7636 §4.5) and reads the user from its user-info endpoint; the handler spends the
// code and returns an ID token this gateway signs (iss publicUrl, aud the client id, sub
// "<provider>:<id>", the nonce echoed), which oauth_login then accepts like any issuer's.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace sessions {

struct OAuth2AuthenticateParameters {
  std::string oauth2CredentialId, authCode, redirectUri, codeVerifier, nonce;
  std::optional<std::string> bearerTokenTargetPublicKey;
};
extern const signet::Shape<OAuth2AuthenticateParameters> kOauth2Authenticate;

signet::ActivityPreparer oauth2Preparer(std::shared_ptr<const PluginState> state);
signet::json::Object oauth2Authenticate(signet::ActivityContext& ctx,
                                        const OAuth2AuthenticateParameters& params,
                                        const PluginState& state);

}  // namespace sessions
