#include "policy/policies.hpp"

#include "activity/activity_store.hpp"
#include "policy/policy_store.hpp"

namespace signet::policy {

namespace {
std::string effect(const std::string& value, const std::string& field) {
  if (value != "EFFECT_ALLOW" && value != "EFFECT_DENY")
    throw invalidArgument("invalid field " + field + ": \"" + value +
                          "\" (expected EFFECT_ALLOW or EFFECT_DENY)");
  return value;
}

void requireUniqueName(Db& db, const std::string& org, const std::string& name,
                       const std::string& exceptId) {
  if (name.empty()) throw invalidArgument("invalid field parameters.policyName: must not be empty");
  if (auto other = policyIdNamed(db, org, name); other && *other != exceptId)
    throw Error(Code::kAlreadyExists, "policy label must be unique: \"" + name + "\" is policy " +
                                          *other + " of organization " + org);
}

std::string create(ActivityContext& ctx, const CreatePolicyParameters& p,
                   const std::string& field) {
  PolicyRecord r;
  r.id = ctx.newId();
  r.organizationId = ctx.organizationId();
  r.name = p.policyName;
  r.effect = effect(p.effect, field + ".effect");
  r.condition = p.condition.value_or("");
  r.consensus = p.consensus.value_or("");
  r.time = p.time.value_or("");
  r.notes = p.notes.value_or("");
  validateExpression(r.condition, "condition", field + ".condition", ctx.services().factKeywords);
  validateExpression(r.consensus, "consensus", field + ".consensus");
  validateExpression(r.time, "time", field + ".time");
  requireUniqueName(ctx.db(), r.organizationId, r.name, "");
  const size_t count = policyCount(ctx.db(), r.organizationId);
  if (count >= kMaxPoliciesPerOrganization)
    throw resourceExhausted("organization " + r.organizationId + " already has " +
                            std::to_string(count) + " policies, the limit");
  r.createdAtMs = r.updatedAtMs = ctx.nowMs();
  insertPolicy(ctx.db(), r);
  return r.id;
}

PolicyRecord requirePolicy(RequestContext& ctx, const std::string& id) {
  auto p = findPolicy(ctx.db(), ctx.organizationId(), id);
  if (!p) throw notFound("policy " + id + " not found in organization " + ctx.organizationId());
  return *p;
}
}  // namespace

const Shape<CreatePolicyParameters>& createPolicyShape() {
  using P = CreatePolicyParameters;
  static const Shape<P> shape = {field("policyName", &P::policyName, {.displayName = true}),
                                 field("effect", &P::effect),
                                 field("condition", &P::condition),
                                 field("consensus", &P::consensus),
                                 field("time", &P::time),
                                 field("notes", &P::notes)};
  return shape;
}
const Shape<CreatePoliciesParameters> kCreatePolicies = {
    field("policies", &CreatePoliciesParameters::policies, createPolicyShape())};
const Shape<UpdatePolicyParameters> kUpdatePolicy = {
    field("policyId", &UpdatePolicyParameters::policyId),
    field("policyName", &UpdatePolicyParameters::policyName, {.displayName = true}),
    field("policyEffect", &UpdatePolicyParameters::policyEffect),
    field("policyCondition", &UpdatePolicyParameters::policyCondition),
    field("policyConsensus", &UpdatePolicyParameters::policyConsensus),
    field("policyNotes", &UpdatePolicyParameters::policyNotes),
    field("time", &UpdatePolicyParameters::time)};
const Shape<DeletePolicyParameters> kDeletePolicy = {
    field("policyId", &DeletePolicyParameters::policyId)};
const Shape<DeletePoliciesParameters> kDeletePolicies = {
    field("policyIds", &DeletePoliciesParameters::policyIds)};

json::Object createPolicy(ActivityContext& ctx, const CreatePolicyParameters& params) {
  json::Object r = json::object();
  r->set("policyId", create(ctx, params, "parameters"));
  return r;
}

json::Object createPolicies(ActivityContext& ctx, const CreatePoliciesParameters& params) {
  const auto& list = params.policies;
  if (list.empty()) throw invalidArgument("invalid field parameters.policies: must not be empty");
  std::vector<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i)
    ids.push_back(create(ctx, list[i], "parameters.policies[" + std::to_string(i) + "]"));
  json::Object r = json::object();
  r->set("policyIds", json::stringArray(ids));
  return r;
}

json::Object updatePolicyHandler(ActivityContext& ctx, const UpdatePolicyParameters& params) {
  const std::string& id = params.policyId;
  const auto& name = params.policyName;
  const auto& eff = params.policyEffect;
  const auto& condition = params.policyCondition;
  const auto& consensus = params.policyConsensus;
  const auto& notes = params.policyNotes;
  const auto& time = params.time;
  if (eff) effect(*eff, "parameters.policyEffect");
  if (condition)
    validateExpression(*condition, "condition", "parameters.policyCondition",
                       ctx.services().factKeywords);
  if (consensus) validateExpression(*consensus, "consensus", "parameters.policyConsensus");
  if (time) validateExpression(*time, "time", "parameters.time");
  // Omitted fields stay as they are.
  PolicyRecord r = requirePolicy(ctx, id);
  if (name) {
    requireUniqueName(ctx.db(), r.organizationId, *name, r.id);
    r.name = *name;
  }
  if (eff) r.effect = *eff;
  if (condition) r.condition = *condition;
  if (consensus) r.consensus = *consensus;
  if (notes) r.notes = *notes;
  if (time) r.time = *time;
  r.updatedAtMs = ctx.nowMs();
  updatePolicy(ctx.db(), r);
  json::Object out = json::object();
  out->set("policyId", id);
  return out;
}

json::Object deletePolicyHandler(ActivityContext& ctx, const DeletePolicyParameters& params) {
  const std::string& id = params.policyId;
  requirePolicy(ctx, id);
  deletePolicy(ctx.db(), ctx.organizationId(), id);
  json::Object r = json::object();
  r->set("policyId", id);
  return r;
}

json::Object deletePolicies(ActivityContext& ctx, const DeletePoliciesParameters& params) {
  const auto& ids = params.policyIds;
  if (ids.empty()) throw invalidArgument("invalid field parameters.policyIds: must not be empty");
  for (const auto& id : ids) {
    requirePolicy(ctx, id);
    deletePolicy(ctx.db(), ctx.organizationId(), id);
  }
  json::Object r = json::object();
  r->set("policyIds", json::stringArray(ids));
  return r;
}

json::Object getPolicy(RequestContext& ctx, const json::Object& body) {
  json::Object r = json::object();
  r->set("policy", policyJson(requirePolicy(ctx, json::requireString(body, "policyId", ""))));
  return r;
}

json::Object listPolicies(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& p : policiesOf(ctx.db(), ctx.organizationId())) list->add(policyJson(p));
  json::Object r = json::object();
  r->set("policies", list);
  return r;
}

json::Object getPolicyEvaluations(RequestContext& ctx, const json::Object& body) {
  std::string activityId = json::requireString(body, "activityId", "");
  // Another organization's activity is as unknown here as in get_activity: the same 404.
  if (!activities::exists(ctx.db(), ctx.organizationId(), activityId))
    throw notFound("activity " + activityId + " not found in organization " + ctx.organizationId());
  json::Array list = json::array();
  for (const auto& stored : activities::evaluationsOf(ctx.db(), ctx.organizationId(), activityId)) {
    json::Object e = json::object();
    e->set("id", stored.id);
    e->set("activityId", activityId);
    e->set("organizationId", ctx.organizationId());
    e->set("voteId", stored.voteId);
    e->set("policyEvaluations", stored.evaluations);
    e->set("createdAt", json::timestamp(stored.createdAtMs));
    list->add(e);
  }
  json::Object r = json::object();
  r->set("policyEvaluations", list);
  return r;
}

}  // namespace signet::policy
