#include "tenancy/identity_services.hpp"

#include "policy/policies.hpp"
#include "policy/policy_store.hpp"
#include "signet/key_params.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/contacts.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/invitations.hpp"
#include "tenancy/oauth_providers.hpp"
#include "tenancy/users.hpp"

namespace signet {

namespace {
UserRef refOf(const UserRecord& u) {
  return {u.organizationId, u.id, u.name};
}

std::optional<UserRef> findUserByContact(RequestContext& ctx, const std::string& organizationId,
                                         const std::string& otpType, const std::string& contact) {
  auto u = directory::findUserByContact(ctx.db(), organizationId, otpType, contact);
  return u ? std::optional<UserRef>(refOf(*u)) : std::nullopt;
}

std::string issueSessionKey(ActivityContext& ctx, const std::string& organizationId,
                            const std::string& userId, const SessionKey& key) {
  Bytes canonical = p256PublicKeyParam(key.publicKey, "parameters.publicKey");
  // Logging in again with the same key refreshes its expiry rather than failing.
  for (const auto& other : directory::apiKeysByPublicKey(ctx.db(), toHex(canonical)))
    if (other.organizationId == organizationId && other.userId == userId && other.expiresAtMs)
      directory::deleteApiKey(ctx.db(), organizationId, other.id);
  return api_keys::addKey(
             ctx.db(), organizationId, userId, key.name, key.publicKey, "API_KEY_CURVE_P256",
             key.expirationSeconds, ctx.nowMs(), "parameters", key.credentialType,
             key.sessionProfileId.empty() ? std::nullopt
                                          : std::optional<std::string>(key.sessionProfileId))
      .id;
}

size_t revokeSessionKeys(ActivityContext& ctx, const std::string& organizationId,
                         const std::string& userId, const std::vector<std::string>& types) {
  size_t removed = 0;
  for (const auto& k : directory::apiKeysOfUser(ctx.db(), organizationId, userId))
    if (std::find(types.begin(), types.end(), k.credentialType) != types.end())
      removed += directory::deleteApiKey(ctx.db(), organizationId, k.id);
  return removed;
}

bool deleteSessionKey(ActivityContext& ctx, const std::string& organizationId,
                      const std::string& userId, const std::string& apiKeyId) {
  for (const auto& k : directory::apiKeysOfUser(ctx.db(), organizationId, userId))
    if (k.id == apiKeyId) return directory::deleteApiKey(ctx.db(), organizationId, k.id) > 0;
  return false;
}

VerifiedContact verificationToken(RequestContext& ctx, const std::string& token,
                                  const std::string& organizationId, const std::string& field,
                                  bool spend) {
  auto org = directory::requireOrganization(ctx.db(), organizationId);
  auto v = contacts::checkVerificationToken(ctx, token, organizationId, org.parentId, field);
  if (spend) contacts::spend(ctx, v, field);
  return v;
}

bool authFeatureEnabled(RequestContext& ctx, const std::string& organizationId,
                        const std::string& feature) {
  auto org = directory::requireOrganization(ctx.db(), organizationId);
  const std::string root = org.parentId.value_or(org.id);
  if (!ctx.db().queryOne(
          "SELECT 1 FROM organization_features WHERE organization_id = ? AND name = ?",
          {root, feature}))
    return false;
  if (!org.parentId) return true;
  if (feature == "FEATURE_NAME_OTP_EMAIL_AUTH") return !org.flags.disableOtpEmailAuth;
  if (feature == "FEATURE_NAME_SMS_AUTH") return !org.flags.disableSmsAuth;
  if (feature == "FEATURE_NAME_EMAIL_AUTH") return !org.flags.disableEmailAuth;
  if (feature == "FEATURE_NAME_EMAIL_RECOVERY") return !org.flags.disableEmailRecovery;
  return true;
}
}  // namespace

IdentityServices identityServices(const Catalog& catalog) {
  IdentityServices s;
  s.findUser = [](RequestContext& ctx, const std::string& organizationId,
                  const std::string& userId) -> std::optional<UserRef> {
    auto u = directory::findUser(ctx.db(), organizationId, userId);
    return u ? std::optional<UserRef>(refOf(*u)) : std::nullopt;
  };
  s.findUserByContact = findUserByContact;
  s.findUserByOidc = [](RequestContext& ctx, const std::string& organizationId,
                        const std::string& issuer, const std::string& subject,
                        const std::vector<std::string>& audiences) -> std::optional<UserRef> {
    auto id =
        oauth_providers::userWithIdentity(ctx.db(), organizationId, issuer, subject, audiences);
    if (!id) return std::nullopt;
    auto u = directory::findUser(ctx.db(), organizationId, *id);
    return u ? std::optional<UserRef>(refOf(*u)) : std::nullopt;
  };
  s.oauthIssuerStored = oauth_providers::issuerStored;
  s.organizationName = [](RequestContext& ctx, const std::string& organizationId) {
    return directory::requireOrganization(ctx.db(), organizationId).name;
  };
  s.parentOrganizationId = [](RequestContext& ctx, const std::string& organizationId) {
    return directory::requireOrganization(ctx.db(), organizationId).parentId.value_or("");
  };
  s.isRootUserOfRootOrganization = [](RequestContext& ctx, const std::string& organizationId,
                                      const std::string& userId) {
    auto org = directory::requireOrganization(ctx.db(), organizationId);
    auto quorum = directory::rootQuorumUserIds(ctx.db(), organizationId);
    return !org.parentId && std::find(quorum.begin(), quorum.end(), userId) != quorum.end();
  };
  s.deleteInvitation = [](ActivityContext& ctx, const std::string& organizationId,
                          const std::string& invitationId) {
    return invitations::remove(ctx.db(), organizationId, invitationId);
  };
  s.createUsers = users::kCreateUsers.handler(users::createUsers);
  s.createApiKeys = api_keys::kCreateApiKeys.handler(api_keys::createApiKeys);
  s.setApiKeyRateBudget = [](ActivityContext& ctx, const std::string& apiKeyId,
                             const std::string& budget) {
    if (budget != kAuthProxyBudget)
      throw internalError("unknown rate budget \"" + budget + "\" (only " +
                          std::string(kAuthProxyBudget) + ")");
    ctx.db().exec("UPDATE api_keys SET rate_budget = ? WHERE organization_id = ? AND id = ?",
                  {budget, ctx.organizationId(), apiKeyId});
  };
  s.createPolicy = policy::createPolicyShape().handler(policy::createPolicy);
  s.issueSessionKey = issueSessionKey;
  s.revokeSessionKeys = revokeSessionKeys;
  s.deleteSessionKey = deleteSessionKey;
  s.verificationToken = verificationToken;
  s.authFeatureEnabled = authFeatureEnabled;
  // The catalog outlives the services it holds; its keywords are read at each check, after
  // index() has gathered them.
  s.checkPolicyCondition = [&catalog](const std::string& expression, const std::string& field) {
    policy::validateExpression(expression, "condition", field, catalog.services().factKeywords);
  };
  return s;
}

}  // namespace signet
