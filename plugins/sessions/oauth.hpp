// OpenID Connect logins: oauth_login (a session JWT for `publicKey`) and the legacy oauth
// activity (a credential bundle for `targetPublicKey`). The ID token must be signed by its
// issuer, carry the nonce that binds it to the key, and match one of the organization's OAuth
// providers on issuer, subject and audience.
#pragma once

#include "logins.hpp"
#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

extern const signet::Shape<LoginParameters> kOauthLogin;
extern const signet::Shape<BundleParameters> kOauth;

signet::json::Object oauthLogin(signet::ActivityContext& ctx, const LoginParameters& params,
                                const PluginState& state);
signet::json::Object oauth(signet::ActivityContext& ctx, const BundleParameters& params,
                           const PluginState& state);

// The verifier the plugin offers the core and its own handlers (Registry::oidcVerifier).
signet::OidcVerifier oidcVerifier(std::shared_ptr<const PluginState> state);
// ActivitySpec::prepare of oauth_login and oauth: the token verified, its keys fetched.
signet::ActivityPreparer oidcTokenPreparer(std::shared_ptr<const PluginState> state);

}  // namespace sessions
