#include "tenancy/authenticators.hpp"

#include "tenancy/directory.hpp"
#include "tenancy/user_params.hpp"

namespace signet::authenticators {

const Shape<CreateAuthenticatorsParameters> kCreateAuthenticators = {
    field("userId", &CreateAuthenticatorsParameters::userId),
    field("authenticators", &CreateAuthenticatorsParameters::authenticators, authenticatorShape())};
const Shape<RecoverUserParameters> kRecoverUser = {
    field("userId", &RecoverUserParameters::userId),
    field("authenticator", &RecoverUserParameters::authenticator, authenticatorShape())};

json::Object createAuthenticators(ActivityContext& ctx,
                                  const CreateAuthenticatorsParameters& params) {
  const std::string& userId = params.userId;
  const auto& list = params.authenticators;
  if (list.empty())
    throw invalidArgument("invalid field parameters.authenticators: must not be empty");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  std::vector<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i)
    ids.push_back(users::addAuthenticator(ctx.db(), ctx.organizationId(), userId, list[i],
                                          "parameters.authenticators[" + std::to_string(i) + "]",
                                          ctx.nowMs()));
  json::Object r = json::object();
  r->set("authenticatorIds", json::stringArray(ids));
  return r;
}

const Shape<DeleteAuthenticatorsParameters> kDeleteAuthenticators = {
    field("userId", &DeleteAuthenticatorsParameters::userId),
    field("authenticatorIds", &DeleteAuthenticatorsParameters::authenticatorIds)};

json::Object deleteAuthenticators(ActivityContext& ctx,
                                  const DeleteAuthenticatorsParameters& params) {
  const std::string& userId = params.userId;
  const auto& ids = params.authenticatorIds;
  if (ids.empty())
    throw invalidArgument("invalid field parameters.authenticatorIds: must not be empty");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  for (const auto& id : ids) {
    auto a = directory::findAuthenticator(ctx.db(), ctx.organizationId(), id);
    if (!a || a->userId != userId)
      throw notFound("authenticator " + id + " of user " + userId + " not found in organization " +
                     ctx.organizationId());
    directory::deleteAuthenticator(ctx.db(), ctx.organizationId(), id);
  }
  json::Object r = json::object();
  r->set("authenticatorIds", json::stringArray(ids));
  return r;
}

json::Object recoverUser(ActivityContext& ctx, const RecoverUserParameters& params) {
  const std::string& userId = params.userId;
  const auto& authenticator = params.authenticator;
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  // Only the credential init_user_email_recovery emailed to this user may recover them, and
  // only once: it is removed with the recovery.
  const Caller& caller = ctx.caller();
  auto key = ctx.db().queryOne(
      "SELECT id FROM api_keys WHERE organization_id = ? AND user_id = ? AND public_key = ? AND "
      "credential_type = ?",
      {ctx.organizationId(), userId, caller.publicKey,
       std::string("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256")});
  if (caller.userId != userId || !key)
    throw permissionDenied(
        "recover_user must be stamped with the recovery credential that "
        "init_user_email_recovery sent to user " +
        userId + "; this request was stamped by user " + caller.userId);
  std::string id = users::addAuthenticator(ctx.db(), ctx.organizationId(), userId, authenticator,
                                           "parameters.authenticator", ctx.nowMs());
  directory::deleteApiKey(ctx.db(), ctx.organizationId(), key->str("id"));
  json::Object r = json::object();
  r->set("authenticatorId", json::stringArray({id}));
  return r;
}

json::Object getAuthenticator(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "authenticatorId", "");
  auto a = directory::findAuthenticator(ctx.db(), ctx.organizationId(), id);
  if (!a)
    throw notFound("authenticator " + id + " not found in organization " + ctx.organizationId());
  json::Object r = json::object();
  r->set("authenticator", authenticatorJson(*a));
  return r;
}

json::Object getAuthenticators(RequestContext& ctx, const json::Object& body) {
  std::string userId = json::requireString(body, "userId", "");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  json::Array list = json::array();
  for (const auto& a : directory::authenticatorsOfUser(ctx.db(), ctx.organizationId(), userId))
    list->add(authenticatorJson(a));
  json::Object r = json::object();
  r->set("authenticators", list);
  return r;
}

}  // namespace signet::authenticators
