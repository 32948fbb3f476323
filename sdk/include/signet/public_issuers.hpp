// The OpenID Connect issuers of the public identity providers the official SDKs offer for
// sign-in: what `signet init` writes into plugins.settings.sessions.oidc.trustedIssuers, and what
// the sessions plugin trusts when a config has no such list. X and Discord are not here: they
// have no OpenID issuer of their own, and their sign-ins reach the gateway as ID tokens of the
// gateway's own issuer (oauth2_authenticate), which is always trusted and never fetched.
#pragma once

#include <string>
#include <vector>

namespace signet {

inline const std::vector<std::string>& publicOidcIssuers() {
  static const std::vector<std::string> issuers = {
      "https://accounts.google.com",  // Google
      "https://appleid.apple.com",    // Sign in with Apple
      "https://www.facebook.com",     // Facebook Login (limited login's ID tokens)
  };
  return issuers;
}

}  // namespace signet
