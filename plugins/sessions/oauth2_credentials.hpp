// OAuth 2.0 credentials of an organization (create/update/delete_oauth2_credential,
// get_oauth2_credential, list_oauth2_credentials): a provider's client id and secret, for
// providers without OpenID Connect (X, Discord). The secret arrives encrypted to the gateway's
// client-secret key, is sealed again under the keyring, and is opened only for an exchange.
#pragma once

#include "signet/plugin.hpp"
#include "signet/sealed_credentials.hpp"
#include "signet/typed_parameters.hpp"

namespace sessions {

struct OAuth2Credential {
  std::string id;
  std::string organizationId;
  std::string provider;  // OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD
  std::string clientId;
  std::string encryptedClientSecret;  // as the client sent it
  int64_t createdAtMs = 0;
  int64_t updatedAtMs = 0;
};

// The credentials' table and their one sealed part, the client secret (sealed under the
// credential's id).
const signet::SealedCredentials& oauth2Credentials();
const signet::SealedCredentials::Part& clientSecretPart();

std::optional<OAuth2Credential> findOAuth2Credential(signet::Db& db,
                                                     const std::string& organizationId,
                                                     const std::string& id);

// One struct for the three operations; each shape reads the fields its operation has.
struct OAuth2CredentialParameters {
  std::string oauth2CredentialId;  // update's and delete's
  std::string provider, clientId, encryptedClientSecret;
};
extern const signet::Shape<OAuth2CredentialParameters> kCreateOauth2Credential,
    kUpdateOauth2Credential, kDeleteOauth2Credential;

signet::json::Object createOauth2Credential(signet::ActivityContext& ctx,
                                            const OAuth2CredentialParameters& params);
signet::json::Object updateOauth2Credential(signet::ActivityContext& ctx,
                                            const OAuth2CredentialParameters& params);
signet::json::Object deleteOauth2Credential(signet::ActivityContext& ctx,
                                            const OAuth2CredentialParameters& params);
signet::json::Object getOauth2Credential(signet::RequestContext& ctx,
                                         const signet::json::Object& body);
signet::json::Object listOauth2Credentials(signet::RequestContext& ctx,
                                           const signet::json::Object& body);

}  // namespace sessions
