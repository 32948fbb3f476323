#include "tenancy/organization_config.hpp"

#include <algorithm>
#include <set>

#include "tenancy/directory.hpp"

namespace signet::organization_config {

namespace {
// Every FEATURE_NAME_* of the OpenAPI document.
constexpr const char* kFeatures[] = {"FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY",
                                     "FEATURE_NAME_WEBAUTHN_ORIGINS",
                                     "FEATURE_NAME_EMAIL_AUTH",
                                     "FEATURE_NAME_EMAIL_RECOVERY",
                                     "FEATURE_NAME_WEBHOOK",
                                     "FEATURE_NAME_SMS_AUTH",
                                     "FEATURE_NAME_OTP_EMAIL_AUTH",
                                     "FEATURE_NAME_AUTH_PROXY",
                                     "FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED",
                                     "FEATURE_NAME_SWAP_CONFIG",
                                     "FEATURE_NAME_EARN_CONFIG"};

const std::string& featureName(const FeatureParameters& params) {
  const std::string& name = params.name;
  if (std::find(std::begin(kFeatures), std::end(kFeatures), name) == std::end(kFeatures))
    throw invalidArgument("invalid field parameters.name: \"" + name +
                          "\" is not a FEATURE_NAME_* value");
  return name;
}

json::Object featuresResult(Db& db, const std::string& organizationId) {
  json::Object r = json::object();
  r->set("features", features(db, organizationId));
  return r;
}

}  // namespace

const Shape<UpdateRootQuorumParameters> kUpdateRootQuorum = {
    field("threshold", &UpdateRootQuorumParameters::threshold),
    field("userIds", &UpdateRootQuorumParameters::userIds)};
const Shape<FeatureParameters> kSetFeature = {
    field("name", &FeatureParameters::name),
    field("value", &FeatureParameters::value, {.required = true})};
const Shape<FeatureParameters> kRemoveFeature = {field("name", &FeatureParameters::name)};
const Shape<UpdateOrganizationNameParameters> kUpdateOrganizationName = {
    field("organizationName", &UpdateOrganizationNameParameters::organizationName,
          {.displayName = true})};

json::Array features(Db& db, const std::string& organizationId) {
  json::Array list = json::array();
  for (const auto& row : db.query("SELECT name, value FROM organization_features WHERE "
                                  "organization_id = ? ORDER BY name",
                                  {organizationId})) {
    json::Object f = json::object();
    f->set("name", row.str("name"));
    f->set("value", row.str("value"));
    list->add(f);
  }
  return list;
}

json::Object updateRootQuorum(ActivityContext& ctx, const UpdateRootQuorumParameters& params) {
  const int64_t threshold = params.threshold;
  const auto& userIds = params.userIds;
  if (threshold < 1)
    throw invalidArgument(
        "invalid field parameters.threshold: quorum threshold must be non-zero integer");
  if (userIds.empty())
    throw invalidArgument("invalid field parameters.userIds: quorum users missing");
  std::set<std::string> unique(userIds.begin(), userIds.end());
  if (unique.size() != userIds.size())
    throw invalidArgument("invalid field parameters.userIds: a user appears twice");
  if (static_cast<size_t>(threshold) > userIds.size())
    throw invalidArgument("invalid field parameters.threshold: " + std::to_string(threshold) +
                          " is more than the " + std::to_string(userIds.size()) + " quorum users");
  for (const auto& id : userIds) directory::requireUser(ctx.db(), ctx.organizationId(), id);
  directory::setRootQuorum(ctx.db(), ctx.organizationId(), userIds, static_cast<int>(threshold),
                           ctx.nowMs());
  return json::object();
}

json::Object setFeature(ActivityContext& ctx, const FeatureParameters& params) {
  const std::string& name = featureName(params);
  const std::string value = params.value.value_or("");
  Db& db = ctx.db();
  db.exec("DELETE FROM organization_features WHERE organization_id = ? AND name = ?",
          {ctx.organizationId(), name});
  db.exec("INSERT INTO organization_features (organization_id, name, value) VALUES (?, ?, ?)",
          {ctx.organizationId(), name, value});
  json::Object event = json::object();
  event->set("organizationId", ctx.organizationId());
  event->set("name", name);
  event->set("value", value);
  ctx.publish(kEventFeatureSet, event);
  return featuresResult(db, ctx.organizationId());
}

json::Object removeFeature(ActivityContext& ctx, const FeatureParameters& params) {
  const std::string& name = featureName(params);
  Db& db = ctx.db();
  if (db.exec("DELETE FROM organization_features WHERE organization_id = ? AND name = ?",
              {ctx.organizationId(), name}) == 0)
    throw notFound("feature " + name + " is not set in organization " + ctx.organizationId());
  json::Object event = json::object();
  event->set("organizationId", ctx.organizationId());
  event->set("name", name);
  ctx.publish(kEventFeatureRemoved, event);
  return featuresResult(db, ctx.organizationId());
}

json::Object updateOrganizationName(ActivityContext& ctx,
                                    const UpdateOrganizationNameParameters& params) {
  const std::string& name = params.organizationName;
  if (name.empty())
    throw invalidArgument("invalid field parameters.organizationName: must not be empty");
  directory::renameOrganization(ctx.db(), ctx.organizationId(), name, ctx.nowMs());
  json::Object r = json::object();
  r->set("organizationId", ctx.organizationId());
  r->set("organizationName", name);
  return r;
}

json::Object getOrganizationConfigs(RequestContext& ctx, const json::Object&) {
  auto org = directory::requireOrganization(ctx.db(), ctx.organizationId());
  json::Object quorum = json::object();
  quorum->set("threshold", org.rootQuorumThreshold);
  quorum->set("userIds", json::stringArray(directory::rootQuorumUserIds(ctx.db(), org.id)));
  json::Object configs = json::object();
  configs->set("features", features(ctx.db(), org.id));
  configs->set("quorum", quorum);
  json::Object r = json::object();
  r->set("configs", configs);
  return r;
}

}  // namespace signet::organization_config
