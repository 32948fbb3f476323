// A software WebAuthn authenticator for tests: holds an ES256 (P-256) or RS256 key, produces
// assertions exactly as a browser would for X-Stamp-WebAuthn, and the registration a browser
// sends to create_authenticators (record() is what that stores, for tests of the verifier).
#pragma once

#include <memory>
#include <string>

#include "signet/client.hpp"
#include "signet/json.hpp"
#include "tenancy/directory.hpp"

namespace signet::test {

class SoftwareAuthenticator : public Stamper {
 public:
  enum class Algorithm { kEs256, kRs256 };
  explicit SoftwareAuthenticator(Algorithm alg = Algorithm::kEs256,
                                 std::string rpId = "signet.test");
  ~SoftwareAuthenticator() override;

  std::pair<std::string, std::string> stamp(std::string_view body) override;
  // v1AuthenticatorParamsV2 for create_authenticators / rootUsers[].authenticators: a
  // webauthn.create ceremony over `challenge` with a "none" attestation, as a browser sends.
  json::Object registration(const std::string& name, const std::string& challenge) const;
  // The record create_authenticators would store for this credential.
  AuthenticatorRecord record(const std::string& organizationId, const std::string& userId) const;
  const std::string& credentialId() const { return credentialId_; }

  // Test knobs: the counter value of the next assertion (it advances by one after each, as
  // a real authenticator's does), and the body the challenge covers.
  uint32_t counter = 1;
  std::optional<std::string> challengeBodyOverride;

 private:
  struct Key;
  Algorithm alg_;
  std::string rpId_;
  std::string credentialId_;
  std::unique_ptr<Key> key_;
};

}  // namespace signet::test
