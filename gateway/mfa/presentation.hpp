// Which authentication method a stamp presents (the public docs' "Satisfying MFA"):
// - a passkey assertion presents AUTHENTICATION_TYPE_PASSKEY (id: the authenticator);
// - an API key presents AUTHENTICATION_TYPE_API_KEY (id: the API key);
// - a session key (one a login or session activity issued) presents AUTHENTICATION_TYPE_SESSION
//   (id: its session profile, or the default session's id), never the method that led to the
//   login: sessions are not transitive;
// - an attested stamp presents AUTHENTICATION_TYPE_EMAIL_OTP or _SMS_OTP, by the contact
//   type of its verification token.
#pragma once

#include "mfa/methods.hpp"
#include "signet/plugin.hpp"
#include "tenancy/directory_cache.hpp"

namespace signet::mfa {

// The method `caller`'s stamp presents. Throws Unauthenticated when the credential is no
// longer registered (it was checked moments before, in the same request).
Method presentedBy(DirectoryView& directory, const Caller& caller);

}  // namespace signet::mfa
