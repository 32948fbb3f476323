#include "tenancy/oauth_providers.hpp"

#include "signet/jwt.hpp"
#include "store/sql_text.hpp"
#include "tenancy/directory.hpp"

namespace signet::oauth_providers {

namespace {
OidcIdentity verified(const Services& services, Db& db, const std::string& token,
                      const std::string& field, int64_t nowMs, bool mayFetch) {
  if (!services.verifyOidcToken)
    throw invalidArgument("invalid field " + field +
                          ": OIDC tokens are verified by the 'sessions' plugin, which is not "
                          "enabled in this gateway's config (plugins.enabled)");
  return services.verifyOidcToken(services, db, token, field, nowMs, mayFetch);
}

void prepareList(RequestContext& ctx, const json::Object& holder, const std::string& field) {
  auto list = json::optionalArray(holder, "oauthProviders", field);
  if (!list) return;
  for (size_t i = 0; i < list->size(); ++i) {
    auto entry = list->getObject(static_cast<unsigned>(i));
    if (!entry || !entry->has("oidcToken") || !entry->get("oidcToken").isString()) continue;
    verified(ctx.services(), ctx.db(), entry->getValue<std::string>("oidcToken"),
             field + ".oauthProviders[" + std::to_string(i) + "].oidcToken", ctx.nowMs(), true);
  }
}
}  // namespace

const Shape<ProviderParameters>& providerShape() {
  static const Shape<OidcClaims> claims = {field("iss", &OidcClaims::iss),
                                           field("sub", &OidcClaims::sub),
                                           field("aud", &OidcClaims::aud)};
  using P = ProviderParameters;
  static const Shape<P> shape = {field("providerName", &P::providerName, {.displayName = true}),
                                 field("oidcToken", &P::oidcToken),
                                 field("oidcClaims", &P::oidcClaims, claims)};
  return shape;
}

std::string add(ActivityContext& ctx, const std::string& organizationId, const std::string& userId,
                const ProviderParameters& params, const std::string& field) {
  const std::string& name = params.providerName;
  if (name.empty())
    throw invalidArgument("invalid field " + field + ".providerName: must not be empty");
  const auto& token = params.oidcToken;
  const auto& given = params.oidcClaims;
  if (!token && !given)
    throw invalidArgument("missing required field " + field + ".oidcToken (or oidcClaims)");
  std::string iss, sub, aud;
  if (token) {
    // The keys were fetched by prepareTokens before the transaction.
    auto id = verified(ctx.services(), ctx.db(), *token, field + ".oidcToken", ctx.nowMs(), false);
    iss = id.issuer;
    sub = id.subject;
    aud = id.audiences.empty() ? "" : id.audiences.front();
  }
  if (given) {
    // With a token, oidcClaims adds another audience (another client id of the same app) to the
    // verified identity; alone, the creator states the identity.
    if (token && (given->iss != iss || given->sub != sub))
      throw invalidArgument("invalid field " + field + ".oidcClaims: iss " + given->iss +
                            " and sub " + given->sub + " differ from the token's (" + iss + ", " +
                            sub + ")");
    iss = given->iss;
    sub = given->sub;
    aud = given->aud;
  }
  if (iss.empty() || sub.empty() || aud.empty())
    throw invalidArgument("invalid field " + field + ": the OIDC identity needs iss, sub and aud");
  Db& db = ctx.db();
  if (db.queryOne(
            "SELECT COUNT(*) AS n FROM oauth_providers WHERE organization_id = ? AND user_id = ?",
            {organizationId, userId})
          ->i64("n") >= static_cast<int64_t>(kMaxPerUser))
    throw resourceExhausted("user " + userId + " in organization " + organizationId +
                            " already has " + std::to_string(kMaxPerUser) +
                            " OAuth providers, the limit");
  if (auto other = userWithIdentity(db, organizationId, iss, sub, {aud}))
    throw Error(Code::kAlreadyExists, "OIDC identity " + iss + " / " + sub + " (audience " + aud +
                                          ") is already linked to user " + *other +
                                          " in organization " + organizationId);
  std::string id = crypto::uuidV4();
  int64_t now = ctx.nowMs();
  db.exec(
      "INSERT INTO oauth_providers (id, organization_id, user_id, name, issuer, audience, "
      "subject, verified, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {id, organizationId, userId, name, iss, aud, sub, int64_t{token ? 1 : 0}, now, now});
  return id;
}

json::Array ofUser(Db& db, const std::string& organizationId, const std::string& userId) {
  json::Array providers = json::array();
  std::string sql =
      "SELECT id, name, issuer, audience, subject, created_at_ms, updated_at_ms FROM "
      "oauth_providers WHERE organization_id = ?";
  SqlParams params{organizationId};
  if (!userId.empty()) {
    sql += " AND user_id = ?";
    params.push_back(userId);
  }
  for (const auto& r : db.query(sql + " ORDER BY created_at_ms, id", params)) {
    json::Object p = json::object();
    p->set("providerId", r.str("id"));
    p->set("providerName", r.str("name"));
    p->set("issuer", r.str("issuer"));
    p->set("audience", r.str("audience"));
    p->set("subject", r.str("subject"));
    p->set("createdAt", json::timestamp(r.i64("created_at_ms")));
    p->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
    providers->add(p);
  }
  return providers;
}

bool issuerStored(Db& db, const std::string& issuer) {
  return db
      .queryOne("SELECT 1 FROM oauth_providers WHERE issuer = ? AND verified = 1 LIMIT 1", {issuer})
      .has_value();
}

std::optional<std::string> userWithIdentity(Db& db, const std::string& organizationId,
                                            const std::string& issuer, const std::string& subject,
                                            const std::vector<std::string>& audiences) {
  std::string sql =
      "SELECT user_id FROM oauth_providers WHERE organization_id = ? AND issuer = ? AND "
      "subject = ?";
  SqlParams params{organizationId, issuer, subject};
  if (!audiences.empty()) {
    sql += " AND audience IN (" + placeholders(audiences.size()) + ")";
    params.insert(params.end(), audiences.begin(), audiences.end());
  }
  auto row = db.queryOne(sql + " ORDER BY created_at_ms, id LIMIT 1", params);
  return row ? std::optional<std::string>(row->str("user_id")) : std::nullopt;
}

std::optional<std::string> providerOfToken(Db& db, const std::string& organizationId,
                                           const std::string& userId, const json::Object& claims) {
  std::vector<std::string> audiences = jwt::audiences(claims);
  if (audiences.empty()) return std::nullopt;
  SqlParams params{organizationId, userId, claims->optValue<std::string>("iss", ""),
                   claims->optValue<std::string>("sub", "")};
  params.insert(params.end(), audiences.begin(), audiences.end());
  auto row = db.queryOne(
      "SELECT id FROM oauth_providers WHERE organization_id = ? AND user_id = ? AND issuer = ? AND "
      "subject = ? AND audience IN (" +
          placeholders(audiences.size()) + ") ORDER BY created_at_ms, id LIMIT 1",
      params);
  return row ? std::optional<std::string>(row->str("id")) : std::nullopt;
}

std::pair<std::string, SqlParams> subOrganizationCondition(const OidcIdentity& token) {
  SqlParams params{token.issuer, token.subject};
  params.insert(params.end(), token.audiences.begin(), token.audiences.end());
  return {
      "id IN (SELECT organization_id FROM oauth_providers WHERE issuer = ? AND subject = ? "
      "AND audience IN (" +
          placeholders(token.audiences.size()) + "))",
      params};
}

std::vector<std::string> secretsWith(std::vector<std::string> more) {
  for (const char* path : {"oauthProviders[].oidcToken", "users[].oauthProviders[].oidcToken",
                           "rootUsers[].oauthProviders[].oidcToken"})
    more.push_back(path);
  return more;
}

void prepareTokens(RequestContext& ctx, const json::Object& params) {
  prepareList(ctx, params, "parameters");
  for (const char* key : {"users", "rootUsers"}) {
    auto list = params->getArray(key);
    if (!list) continue;
    for (size_t i = 0; i < list->size(); ++i)
      if (auto user = list->getObject(static_cast<unsigned>(i)))
        prepareList(ctx, user, std::string("parameters.") + key + "[" + std::to_string(i) + "]");
  }
}

const Shape<CreateOauthProvidersParameters> kCreateOauthProviders = {
    field("userId", &CreateOauthProvidersParameters::userId),
    field("oauthProviders", &CreateOauthProvidersParameters::oauthProviders, providerShape())};
const Shape<DeleteOauthProvidersParameters> kDeleteOauthProviders = {
    field("userId", &DeleteOauthProvidersParameters::userId),
    field("providerIds", &DeleteOauthProvidersParameters::providerIds)};

json::Object createOauthProviders(ActivityContext& ctx,
                                  const CreateOauthProvidersParameters& params) {
  const std::string& userId = params.userId;
  const auto& list = params.oauthProviders;
  if (list.empty())
    throw invalidArgument("invalid field parameters.oauthProviders: must not be empty");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  std::vector<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i)
    ids.push_back(add(ctx, ctx.organizationId(), userId, list[i],
                      "parameters.oauthProviders[" + std::to_string(i) + "]"));
  json::Object r = json::object();
  r->set("providerIds", json::stringArray(ids));
  return r;
}

json::Object deleteOauthProviders(ActivityContext& ctx,
                                  const DeleteOauthProvidersParameters& params) {
  const std::string& userId = params.userId;
  const auto& ids = params.providerIds;
  if (ids.empty()) throw invalidArgument("invalid field parameters.providerIds: must not be empty");
  directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  for (const auto& id : ids) {
    auto row = ctx.db().queryOne(
        "SELECT user_id FROM oauth_providers WHERE organization_id = ? AND id = ?",
        {ctx.organizationId(), id});
    if (!row || row->str("user_id") != userId)
      throw notFound("OAuth provider " + id + " of user " + userId + " not found in organization " +
                     ctx.organizationId());
    ctx.db().exec("DELETE FROM oauth_providers WHERE organization_id = ? AND id = ?",
                  {ctx.organizationId(), id});
  }
  json::Object r = json::object();
  r->set("providerIds", json::stringArray(ids));
  return r;
}

json::Object getOauthProviders(RequestContext& ctx, const json::Object& body) {
  std::string userId = json::optionalString(body, "userId", "").value_or("");
  if (!userId.empty()) directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  json::Object r = json::object();
  r->set("oauthProviders", ofUser(ctx.db(), ctx.organizationId(), userId));
  return r;
}

}  // namespace signet::oauth_providers
