// Shared set-up for the sessions plugin's tests: organizations with users to log in, features,
// a raw P-256 session key, the code out of a delivered message, and a client signature.
#pragma once

#include <regex>

#include "support/test_gateway.hpp"

namespace signet::test {

// A key whose private half the test keeps (to sign client signatures and attested stamps).
struct SessionKey {
  crypto::SecretBytes privateKey;
  std::string publicKey;  // compressed hex
  std::shared_ptr<ApiKeyStamper> stamper() const;
};
SessionKey newSessionKey();

// Sets a FEATURE_NAME_* on the root organization through the API.
void enableFeature(TestGateway& gw, const std::string& name, const std::string& value = "");

struct SubOrganization {
  std::string id;
  std::string userId;
  Key userKey;  // the root user's own API key
};
// A sub-organization with one root user who has an API key, `email` and `phone`; `flags`
// are extra create_sub_organization parameters (disableOtpEmailAuth, ...).
SubOrganization createSubOrganization(TestGateway& gw, const std::string& email,
                                      const std::string& phone,
                                      const json::Object& flags = json::object());

// X-Stamp-Attested: the session key signs the body; a verification token bound to it vouches
// (or, with STAMP_ATTESTED_SCHEME_P256_OIDC, an OIDC ID token whose nonce names the key).
class AttestedStamper : public Stamper {
 public:
  AttestedStamper(const SessionKey& key, std::string token,
                  std::string scheme = "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN")
      : key_(key), token_(std::move(token)), scheme_(std::move(scheme)) {}
  std::pair<std::string, std::string> stamp(std::string_view body) override;

 private:
  const SessionKey& key_;
  std::string token_;
  std::string scheme_;
};

// A verification token for `email`, bound to `key`, through the API as a client gets one:
// init_otp and verify_otp by the root organization (FEATURE_NAME_OTP_EMAIL_AUTH must be set),
// the code read from the delivered message.
std::string emailVerificationToken(TestGateway& gw, const std::string& email,
                                   const SessionKey& key);

// The code in a delivered message ("... code is: XXXXXX" or "Code: XXXXXX").
std::string codeIn(const std::string& message);
// The newest message in <dataDir>/outbox with `extension` (bounded wait), or "".
std::string newestOutboxMessage(const TestGateway& gw, const std::string& extension = ".eml");

// {"publicKey","scheme","message","signature"} for an OTP login with `tokenKey`.
json::Object loginClientSignature(const SessionKey& tokenKey, const std::string& verificationToken,
                                  const std::string& sessionPublicKey);

// A stamper for the key a credential bundle sealed to `target` holds; null (and a test
// failure) when the bundle does not open.
std::shared_ptr<ApiKeyStamper> stamperFromBundle(const SessionKey& target,
                                                 const std::string& credentialBundle);

// The claims of a JWT signed by the gateway (single or double SHA-256), or a test failure.
json::Object gatewayJwtClaims(TestGateway& gw, const std::string& token, bool doubleHash);

}  // namespace signet::test
