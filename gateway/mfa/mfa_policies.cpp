#include "mfa/mfa_policies.hpp"

#include <algorithm>

#include "activity/activity_store.hpp"
#include "mfa/mfa_store.hpp"
#include "policy/policy_store.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/oauth_providers.hpp"

namespace signet::mfa {

namespace {
UserRecord requireUser(RequestContext& ctx, const std::string& userId) {
  auto user = directory::findUser(ctx.db(), ctx.organizationId(), userId);
  if (!user)
    throw notFound("user " + userId + " not found in organization " + ctx.organizationId());
  return *user;
}

MfaPolicyRecord requirePolicy(RequestContext& ctx, const UserRecord& user, const std::string& id) {
  auto p = findPolicy(ctx.db(), ctx.organizationId(), user.id, id);
  if (!p)
    throw notFound("MFA policy " + id + " not found for user " + user.id + " in organization " +
                   ctx.organizationId());
  return *p;
}

std::string checkedName(const std::string& name) {
  if (name.empty() || name.size() > 256)
    throw invalidArgument("invalid field parameters.mfaPolicyName: must be 1 to 256 bytes, got " +
                          std::to_string(name.size()));
  return name;
}

void requireUniqueName(Db& db, const MfaPolicyRecord& p) {
  for (const auto& other : policiesOfUser(db, p.userId))
    if (other.name == p.name && other.id != p.id)
      throw Error(Code::kAlreadyExists, "MFA policy name must be unique per user: \"" + p.name +
                                            "\" is MFA policy " + other.id + " of user " +
                                            p.userId);
}

std::string checkedCondition(ActivityContext& ctx, const std::string& condition) {
  if (condition.empty())
    throw invalidArgument(
        "invalid field parameters.condition: must not be empty (write 'true' to require MFA "
        "for every activity)");
  policy::validateExpression(condition, "condition", "parameters.condition",
                             ctx.services().factKeywords);
  return condition;
}

int64_t checkedOrder(int64_t order) {
  if (order < 0)
    throw invalidArgument("invalid field parameters.order: must be 0 or more, got " +
                          std::to_string(order));
  return order;
}

// Whether the user has, today, a credential that can present `m` (the public docs' table:
// policies the user cannot meet are refused when written, so no policy locks a user out).
bool available(RequestContext& ctx, const UserRecord& user, const Method& m) {
  Db& db = ctx.db();
  auto any = [](const auto& list, const auto& matches) {
    return std::any_of(list.begin(), list.end(), matches);
  };
  if (m.type == kPasskey)
    return any(directory::authenticatorsOfUser(db, user.organizationId, user.id),
               [&](const AuthenticatorRecord& a) { return m.id.empty() || a.id == m.id; });
  if (m.type == kApiKey)  // any lasting API key, or the one named (a session's key is none)
    return any(
        directory::apiKeysOfUser(db, user.organizationId, user.id), [&](const ApiKeyRecord& k) {
          return isApiKeyType(k.credentialType) && (m.id.empty() ? !k.expiresAtMs : k.id == m.id);
        });
  if (m.type == kEmailOtp) return user.email && !user.email->empty();
  if (m.type == kSmsOtp) return user.phoneNumber && !user.phoneNumber->empty();
  if (m.type == kSession) {
    // A session is always obtainable; a pinned one needs its session profile.
    if (m.id.empty() || m.id == kDefaultSessionProfileId) return true;
    const auto& lookup = ctx.services().sessionProfileScope;
    if (!lookup) return false;
    auto org = directory::requireOrganization(db, user.organizationId);
    return lookup(ctx, org.id, m.id) || (org.parentId && lookup(ctx, *org.parentId, m.id));
  }
  if (m.type == kOauth) {
    // Presented by an OIDC-attested stamp, which needs the module that verifies ID tokens.
    if (!ctx.services().verifyOidcToken) return false;
    auto providers = oauth_providers::ofUser(db, user.organizationId, user.id);
    for (size_t i = 0; i < providers->size(); ++i)
      if (m.id.empty() ||
          providers->getObject(static_cast<unsigned>(i))->getValue<std::string>("providerId") ==
              m.id)
        return true;
    return false;
  }
  return false;
}

void requireSatisfiable(RequestContext& ctx, const UserRecord& user, const MfaPolicyRecord& p) {
  for (const auto& step : p.steps) {
    if (std::any_of(step.begin(), step.end(),
                    [&](const Method& m) { return available(ctx, user, m); }))
      continue;
    // Only an OIDC-attested stamp presents OAuth: without a module that verifies ID tokens, a
    // step only OAuth could meet would lock the user out.
    if (!ctx.services().verifyOidcToken &&
        std::all_of(step.begin(), step.end(), [](const Method& m) { return m.type == kOauth; }))
      throw Error(Code::kUnimplemented,
                  "mfa policy '" + p.name +
                      "' has a step only OAuth can meet; OAuth is presented by an OIDC-attested "
                      "stamp, verified by the 'sessions' plugin, which is not enabled in this "
                      "gateway's config (plugins.enabled)");
    std::string names;
    for (const auto& m : step) names += (names.empty() ? "\"" : ", \"") + label(m.type) + "\"";
    throw invalidArgument("user (" + user.id +
                          ") cannot satisfy mfa policy requirement: mfa policy '" + p.name +
                          "' requires one of [" + names +
                          "] but user does not, or will not, have a matching credential");
  }
}

json::Object idResult(const std::string& id) {
  json::Object r = json::object();
  r->set("mfaPolicyId", id);
  return r;
}
}  // namespace

const Shape<MfaPolicyParameters> kCreateMfaPolicy = {
    field("userId", &MfaPolicyParameters::userId),
    field("mfaPolicyName", &MfaPolicyParameters::mfaPolicyName,
          {.maxLength = 256, .displayName = true, .required = true}),
    field("condition", &MfaPolicyParameters::condition, {.required = true}),
    field("requiredAuthenticationMethods", &MfaPolicyParameters::requiredAuthenticationMethods,
          stepShape(), {.required = true}),
    field("order", &MfaPolicyParameters::order, {.decimal = true, .required = true}),
    field("notes", &MfaPolicyParameters::notes)};
const Shape<MfaPolicyParameters> kUpdateMfaPolicy = {
    field("userId", &MfaPolicyParameters::userId),
    field("mfaPolicyId", &MfaPolicyParameters::mfaPolicyId, {.required = true}),
    field("mfaPolicyName", &MfaPolicyParameters::mfaPolicyName,
          {.maxLength = 256, .displayName = true}),
    field("condition", &MfaPolicyParameters::condition),
    field("requiredAuthenticationMethods", &MfaPolicyParameters::requiredAuthenticationMethods,
          stepShape()),
    field("order", &MfaPolicyParameters::order, {.decimal = true}),
    field("notes", &MfaPolicyParameters::notes)};
const Shape<DeleteMfaPolicyParameters> kDeleteMfaPolicy = {
    field("userId", &DeleteMfaPolicyParameters::userId),
    field("mfaPolicyId", &DeleteMfaPolicyParameters::mfaPolicyId)};

json::Object createMfaPolicy(ActivityContext& ctx, const MfaPolicyParameters& params) {
  UserRecord user = requireUser(ctx, params.userId);
  MfaPolicyRecord p;
  p.id = ctx.newId();
  p.organizationId = ctx.organizationId();
  p.userId = user.id;
  // The shape requires the name, condition, methods and order of a new policy.
  p.name = checkedName(params.mfaPolicyName.value_or(""));
  p.condition = checkedCondition(ctx, params.condition.value_or(""));
  p.steps = parseSteps(params.requiredAuthenticationMethods.value_or(std::vector<StepParameters>{}),
                       "parameters.requiredAuthenticationMethods");
  p.order = checkedOrder(params.order.value_or(0));
  p.notes = params.notes.value_or("");
  requireUniqueName(ctx.db(), p);
  requireSatisfiable(ctx, user, p);
  size_t count = policiesOfUser(ctx.db(), user.id).size();
  if (count >= kMaxPoliciesPerUser)
    throw resourceExhausted("user " + user.id + " already has " + std::to_string(count) +
                            " MFA policies, the limit");
  p.createdAtMs = p.updatedAtMs = ctx.nowMs();
  insertPolicy(ctx.db(), p);
  return idResult(p.id);
}

json::Object updateMfaPolicy(ActivityContext& ctx, const MfaPolicyParameters& params) {
  UserRecord user = requireUser(ctx, params.userId);
  MfaPolicyRecord p = requirePolicy(ctx, user, params.mfaPolicyId.value_or(""));
  // Omitted fields stay as they are.
  if (params.mfaPolicyName) p.name = checkedName(*params.mfaPolicyName);
  if (params.condition) p.condition = checkedCondition(ctx, *params.condition);
  if (params.requiredAuthenticationMethods)
    p.steps = parseSteps(*params.requiredAuthenticationMethods,
                         "parameters.requiredAuthenticationMethods");
  if (params.order) p.order = checkedOrder(*params.order);
  if (params.notes) p.notes = *params.notes;
  requireUniqueName(ctx.db(), p);
  requireSatisfiable(ctx, user, p);
  p.updatedAtMs = ctx.nowMs();
  updatePolicy(ctx.db(), p);
  return idResult(p.id);
}

json::Object deleteMfaPolicy(ActivityContext& ctx, const DeleteMfaPolicyParameters& params) {
  UserRecord user = requireUser(ctx, params.userId);
  MfaPolicyRecord p = requirePolicy(ctx, user, params.mfaPolicyId);
  deletePolicy(ctx.db(), p.id);
  return idResult(p.id);
}

json::Object getMfaPolicy(RequestContext& ctx, const json::Object& body) {
  UserRecord user = requireUser(ctx, json::requireString(body, "userId", ""));
  json::Object r = json::object();
  r->set("mfaPolicy",
         policyJson(requirePolicy(ctx, user, json::requireString(body, "mfaPolicyId", ""))));
  return r;
}

json::Object getMfaPolicies(RequestContext& ctx, const json::Object& body) {
  UserRecord user = requireUser(ctx, json::requireString(body, "userId", ""));
  json::Array list = json::array();
  for (const auto& p : policiesOfUser(ctx.db(), user.id)) list->add(policyJson(p));
  json::Object r = json::object();
  r->set("mfaPolicies", list);
  return r;
}

json::Object getMfaStatus(RequestContext& ctx, const json::Object& body) {
  std::string activityId = json::requireString(body, "activityId", "");
  auto userId = json::optionalString(body, "userId", "");
  if (!activities::exists(ctx.db(), ctx.organizationId(), activityId))
    throw notFound("activity " + activityId + " not found in organization " + ctx.organizationId());
  json::Object r = json::object();
  r->set("mfaStatuses", statusesOf(ctx.db(), ctx.organizationId(), activityId,
                                   userId && !userId->empty() ? userId : std::nullopt));
  return r;
}

}  // namespace signet::mfa
