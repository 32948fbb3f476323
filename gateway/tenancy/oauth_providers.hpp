// OAuth providers: the OpenID Connect identities (issuer, subject, audience) a user logs in
// with. Tokens given at registration are verified by the module that verifies ID tokens (the
// sessions plugin); V2's bare oidcClaims are taken as the creator states them.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::oauth_providers {

inline constexpr size_t kMaxPerUser = 10;

// One OauthProviderParams (a token) or OauthProviderParamsV2 (a token, claims, or both) entry.
struct OidcClaims {
  std::string iss, sub, aud;
};
struct ProviderParameters {
  std::string providerName;
  std::optional<std::string> oidcToken;
  std::optional<OidcClaims> oidcClaims;
};
// Made on first use: the user shapes nest it (typed_parameters.hpp).
const Shape<ProviderParameters>& providerShape();

// Adds the provider `field` (where it sits in the intent) names; returns its id.
std::string add(ActivityContext& ctx, const std::string& organizationId, const std::string& userId,
                const ProviderParameters& params, const std::string& field);
json::Array ofUser(Db& db, const std::string& organizationId, const std::string& userId);
// The user with a provider of (issuer, subject) whose audience is one of `audiences` (any
// audience when empty).
std::optional<std::string> userWithIdentity(Db& db, const std::string& organizationId,
                                            const std::string& issuer, const std::string& subject,
                                            const std::vector<std::string>& audiences);
// Whether any organization has a provider of `issuer` whose identity came from a verified token
// (IdentityServices::oauthIssuerStored): one stated by bare oidcClaims does not count, since
// anyone signing up through the auth proxy may state any issuer.
bool issuerStored(Db& db, const std::string& issuer);
// The provider of `userId` that a verified token's claims (iss, sub, aud) match.
std::optional<std::string> providerOfToken(Db& db, const std::string& organizationId,
                                           const std::string& userId, const json::Object& claims);
// The list_suborgs OIDC_TOKEN condition: sub-organizations with a provider matching the
// verified token.
std::pair<std::string, SqlParams> subOrganizationCondition(const OidcIdentity& token);

// ActivitySpec::secrets for every activity that takes oauthProviders (directly, or under users
// or rootUsers): their ID tokens, and `more` beside them.
std::vector<std::string> secretsWith(std::vector<std::string> more);

// ActivitySpec::prepare for every activity that takes oauthProviders (directly, or under users
// or rootUsers): fetches the issuers' keys and refuses a bad token before anything is stored.
void prepareTokens(RequestContext& ctx, const json::Object& params);

struct CreateOauthProvidersParameters {
  std::string userId;
  std::vector<ProviderParameters> oauthProviders;
};
struct DeleteOauthProvidersParameters {
  std::string userId;
  std::vector<std::string> providerIds;
};
extern const Shape<CreateOauthProvidersParameters> kCreateOauthProviders;
extern const Shape<DeleteOauthProvidersParameters> kDeleteOauthProviders;
json::Object createOauthProviders(ActivityContext& ctx,
                                  const CreateOauthProvidersParameters& params);
json::Object deleteOauthProviders(ActivityContext& ctx,
                                  const DeleteOauthProvidersParameters& params);
json::Object getOauthProviders(RequestContext& ctx, const json::Object& body);

}  // namespace signet::oauth_providers
