// An organization's on-ramp credentials (create/update/delete_fiat_on_ramp_credential,
// list_fiat_on_ramp_credentials). The provider's secret and private API keys arrive encrypted
// to the gateway's on-ramp key (encryptOnRampSecret), are sealed again under the keyring, and
// are opened only for a call to the provider or a URL signature.
//
// What each field holds:
//   MoonPay   publishableApiKey  the pk_ key, sent in widget URLs
//             secret             the sk_ key: signs widget URLs, reads transactions
//   Coinbase  projectId          the CDP project id
//             publishableApiKey  the CDP client API key
//             secret             the id ("name") of a CDP secret API key: the JWTs' kid and sub
//             private            that key's private half (EC P-256 PEM, or Ed25519 in base64)
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"
#include "signet/sealed_credentials.hpp"
#include "signet/typed_parameters.hpp"

namespace fiat_onramp {

struct Credential {
  std::string id;
  std::string organizationId;
  std::string provider;
  std::string projectId;
  std::string publishableApiKey;
  std::string encryptedSecretApiKey;   // as the client sent it
  std::string encryptedPrivateApiKey;  // as the client sent it; empty when none
  bool sandboxMode = false;
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

// The credentials' table and their sealed parts: the secret API key, and Coinbase's private key.
const signet::SealedCredentials& sealedCredentials();
const signet::SealedCredentials::Part& secretPart();
const signet::SealedCredentials::Part& privatePart();

std::optional<Credential> findCredential(signet::Db& db, const std::string& organizationId,
                                         const std::string& id);
// The organization's newest credential for the provider in the given mode.
std::optional<Credential> credentialFor(signet::Db& db, const std::string& organizationId,
                                        const std::string& provider, bool sandboxMode);

// One struct for the three operations; each shape reads the fields its operation has.
struct CredentialParameters {
  std::string fiatOnrampCredentialId;  // update's and delete's
  std::string onrampProvider;
  std::optional<std::string> projectId;
  std::string publishableApiKey, encryptedSecretApiKey;
  std::optional<std::string> encryptedPrivateApiKey;
  std::optional<bool> sandboxMode;  // create's: a credential keeps the mode it was created in
};
extern const signet::Shape<CredentialParameters> kCreateCredential, kUpdateCredential,
    kDeleteCredential;

signet::json::Object createCredential(signet::ActivityContext& ctx, const CredentialParameters& p);
signet::json::Object updateCredential(signet::ActivityContext& ctx, const CredentialParameters& p);
signet::json::Object deleteCredential(signet::ActivityContext& ctx, const CredentialParameters& p);
signet::json::Object listCredentials(signet::RequestContext& ctx, const signet::json::Object& b);

}  // namespace fiat_onramp
