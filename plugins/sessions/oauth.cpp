#include "oauth.hpp"

#include "logins.hpp"
#include "oidc_verifier.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr const char* kTokenField = "parameters.oidcToken";

std::string joined(const std::vector<std::string>& list) {
  std::string s;
  for (const auto& v : list) s += (s.empty() ? "" : ", ") + v;
  return s;
}

// The core's answer to whether an organization stored a provider of an issuer, read from `db`.
std::function<bool(const std::string&)> storedIssuers(const Services& services, Db& db) {
  return [&services, &db](const std::string& issuer) {
    return services.identity.oauthIssuerStored && services.identity.oauthIssuerStored(db, issuer);
  };
}

// The user the token names: verified (keys fetched by the preparer), bound to `publicKey`, and
// matching a provider of the organization.
UserRef userOfToken(ActivityContext& ctx, const PluginState& state, const std::string& token,
                    const std::string& publicKey) {
  auto id = verifyIdToken(state.oidcKeys, state.settings.oidc, ctx.services().gateway,
                          storedIssuers(ctx.services(), ctx.db()), token, kTokenField, ctx.nowMs(),
                          false);
  requireNonceFor(id, publicKey, kTokenField);
  const auto& identity = ctx.services().identity;
  if (auto user =
          identity.findUserByOidc(ctx, ctx.organizationId(), id.issuer, id.subject, id.audiences))
    return *user;
  if (identity.findUserByOidc(ctx, ctx.organizationId(), id.issuer, id.subject, {}))
    throw invalidArgument("invalid field " + std::string(kTokenField) + ": audience " +
                          joined(id.audiences) + " is not the audience of the OAuth provider " +
                          id.issuer + " / " + id.subject + " in organization " +
                          ctx.organizationId());
  throw invalidArgument("invalid field " + std::string(kTokenField) + ": no user of organization " +
                        ctx.organizationId() + " has an OAuth provider with issuer " + id.issuer +
                        " and subject " + id.subject);
}
}  // namespace

const Shape<LoginParameters> kOauthLogin = {
    field("oidcToken", &LoginParameters::oidcToken),
    field("publicKey", &LoginParameters::publicKey),
    field("expirationSeconds", &LoginParameters::expirationSeconds, {.decimal = true}),
    field("sessionProfileId", &LoginParameters::sessionProfileId),
    field("invalidateExisting", &LoginParameters::invalidateExisting)};
const Shape<BundleParameters> kOauth = {
    field("oidcToken", &BundleParameters::oidcToken),
    field("targetPublicKey", &BundleParameters::targetPublicKey),
    field("apiKeyName", &BundleParameters::apiKeyName, {.displayName = true}),
    field("expirationSeconds", &BundleParameters::expirationSeconds, {.decimal = true}),
    field("invalidateExisting", &BundleParameters::invalidateExisting)};

json::Object oauthLogin(ActivityContext& ctx, const LoginParameters& p, const PluginState& state) {
  std::string publicKey = compressedP256(p.publicKey, "parameters.publicKey");
  UserRef user = userOfToken(ctx, state, p.oidcToken, publicKey);
  return loginSession(ctx, user, p);
}

json::Object oauth(ActivityContext& ctx, const BundleParameters& p, const PluginState& state) {
  std::string target = compressedP256(p.targetPublicKey, "parameters.targetPublicKey");
  UserRef user = userOfToken(ctx, state, p.oidcToken, target);
  auto issued = issueCredentialBundle(
      ctx, user, target, "CREDENTIAL_TYPE_OAUTH_KEY_P256", apiKeyNameOf(ctx, p.apiKeyName, "Oauth"),
      lifetimeOf(p.expirationSeconds), p.invalidateExisting.value_or(false));
  json::Object result = json::object();
  result->set("userId", user.userId);
  result->set("apiKeyId", issued.apiKeyId);
  result->set("credentialBundle", issued.credentialBundle);
  return result;
}

OidcVerifier oidcVerifier(std::shared_ptr<const PluginState> state) {
  return [state](const Services& services, Db& db, const std::string& token,
                 const std::string& field, int64_t nowMs, bool mayFetch) {
    return verifyIdToken(state->oidcKeys, state->settings.oidc, services.gateway,
                         storedIssuers(services, db), token, field, nowMs, mayFetch);
  };
}

ActivityPreparer oidcTokenPreparer(std::shared_ptr<const PluginState> state) {
  return [state](RequestContext& ctx, const json::Object& p) {
    // Admission refused a missing or non-string token already; a preparer stays defensive.
    if (!p->has("oidcToken") || !p->get("oidcToken").isString()) return;
    verifyIdToken(state->oidcKeys, state->settings.oidc, ctx.services().gateway,
                  storedIssuers(ctx.services(), ctx.db()), p->getValue<std::string>("oidcToken"),
                  kTokenField, ctx.nowMs(), true);
  };
}

}  // namespace sessions
