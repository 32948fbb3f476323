#include "profiles.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr const char* kColumns =
    "id, name, scope, expiration_seconds, notes, created_at_ms, updated_at_ms";

Profile profileFrom(const Row& r) {
  return {r.str("id"),
          r.str("name"),
          r.str("scope"),
          r.optI64("expiration_seconds"),
          r.optStr("notes").value_or(""),
          r.i64("created_at_ms"),
          r.i64("updated_at_ms")};
}

json::Object profileJson(const Profile& p) {
  json::Object o = json::object();
  o->set("sessionProfileId", p.id);
  o->set("sessionProfileName", p.name);
  o->set("scope", p.scope);
  if (p.expirationSeconds) o->set("expirationSeconds", std::to_string(*p.expirationSeconds));
  if (!p.notes.empty()) o->set("notes", p.notes);
  o->set("createdAt", json::timestamp(p.createdAtMs));
  o->set("updatedAt", json::timestamp(p.updatedAtMs));
  return o;
}
}  // namespace

Profile requireProfile(RequestContext& ctx, const std::string& organizationId,
                       const std::string& profileId) {
  auto row = ctx.db().queryOne(std::string("SELECT ") + kColumns +
                                   " FROM session_profiles WHERE organization_id = ? AND id = ?",
                               {organizationId, profileId});
  if (!row)
    throw notFound("session profile " + profileId + " not found in organization " + organizationId);
  return profileFrom(*row);
}

std::optional<std::string> profileScope(RequestContext& ctx, const std::string& organizationId,
                                        const std::string& profileId) {
  auto row =
      ctx.db().queryOne("SELECT scope FROM session_profiles WHERE organization_id = ? AND id = ?",
                        {organizationId, profileId});
  if (!row) return std::nullopt;
  return row->str("scope");
}

const Shape<CreateSessionProfileParameters> kCreateSessionProfile = {
    field("sessionProfileName", &CreateSessionProfileParameters::sessionProfileName,
          {.displayName = true}),
    field("scope", &CreateSessionProfileParameters::scope),
    field("expirationSeconds", &CreateSessionProfileParameters::expirationSeconds,
          {.decimal = true}),
    field("notes", &CreateSessionProfileParameters::notes)};

json::Object createSessionProfile(ActivityContext& ctx, const CreateSessionProfileParameters& p) {
  Profile profile;
  profile.name = p.sessionProfileName;
  profile.scope = p.scope;
  profile.expirationSeconds = p.expirationSeconds;
  profile.notes = p.notes.value_or("");
  if (profile.name.empty() || profile.name.size() > 256)
    throw invalidArgument("invalid field parameters.sessionProfileName: must be 1 to 256 bytes");
  if (profile.scope.size() > 4096)
    throw invalidArgument("invalid field parameters.scope: must be at most 4096 bytes, got " +
                          std::to_string(profile.scope.size()));
  // The scope is a policy condition the engine holds the profile's sessions to.
  ctx.services().identity.checkPolicyCondition(profile.scope, "parameters.scope");
  if (profile.expirationSeconds && *profile.expirationSeconds <= 0)
    throw invalidArgument("invalid field parameters.expirationSeconds: must be positive, got " +
                          std::to_string(*profile.expirationSeconds));
  Db& db = ctx.db();
  if (db.queryOne("SELECT 1 FROM session_profiles WHERE organization_id = ? AND name = ?",
                  {ctx.organizationId(), profile.name}))
    throw Error(Code::kAlreadyExists, "a session profile named \"" + profile.name +
                                          "\" already exists in organization " +
                                          ctx.organizationId());
  auto count = db.queryOne("SELECT COUNT(*) AS n FROM session_profiles WHERE organization_id = ?",
                           {ctx.organizationId()});
  if (count && count->i64("n") >= static_cast<int64_t>(kMaxProfilesPerOrganization))
    throw resourceExhausted("organization " + ctx.organizationId() + " already has " +
                            std::to_string(kMaxProfilesPerOrganization) +
                            " session profiles, the limit");
  profile.id = ctx.newId();
  profile.createdAtMs = profile.updatedAtMs = ctx.nowMs();
  db.exec(
      "INSERT INTO session_profiles (id, organization_id, name, scope, expiration_seconds, "
      "notes, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {profile.id, ctx.organizationId(), profile.name, profile.scope,
       profile.expirationSeconds ? SqlValue(*profile.expirationSeconds) : SqlValue(nullptr),
       profile.notes, profile.createdAtMs, profile.updatedAtMs});
  json::Object result = json::object();
  result->set("sessionProfileId", profile.id);
  return result;
}

json::Object getSessionProfile(RequestContext& ctx, const json::Object& body) {
  std::string id = json::requireString(body, "sessionProfileId", "");
  json::Object out = json::object();
  out->set("sessionProfile", profileJson(requireProfile(ctx, ctx.organizationId(), id)));
  return out;
}

json::Object getSessionProfiles(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& row :
       ctx.db().query(std::string("SELECT ") + kColumns +
                          " FROM session_profiles WHERE organization_id = ? ORDER BY "
                          "created_at_ms, id",
                      {ctx.organizationId()}))
    list->add(profileJson(profileFrom(row)));
  json::Object out = json::object();
  out->set("sessionProfiles", list);
  return out;
}

}  // namespace sessions
