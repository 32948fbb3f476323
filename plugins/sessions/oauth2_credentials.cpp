#include "oauth2_credentials.hpp"

namespace sessions {

using namespace signet;

const SealedCredentials& oauth2Credentials() {
  static const SealedCredentials store{
      .table = "oauth2_credentials",
      .idColumn = "id",
      .noun = "OAuth 2.0 credential",
      .maxPerOrganization = 100,
      .parts = {{.prefix = "", .suffix = "", .kind = "oauth2-client-secret"}}};
  return store;
}
const SealedCredentials::Part& clientSecretPart() {
  return oauth2Credentials().parts[0];
}

namespace {

OAuth2Credential fromRow(const Row& r) {
  return {r.str("id"),           r.str("organization_id"),         r.str("provider"),
          r.str("client_id"),    r.str("encrypted_client_secret"), r.i64("created_at_ms"),
          r.i64("updated_at_ms")};
}

json::Object toJson(const OAuth2Credential& c) {
  json::Object o = json::object();
  o->set("oauth2CredentialId", c.id);
  o->set("organizationId", c.organizationId);
  o->set("provider", c.provider);
  o->set("clientId", c.clientId);
  o->set("encryptedClientSecret", c.encryptedClientSecret);
  o->set("createdAt", json::timestamp(c.createdAtMs));
  o->set("updatedAt", json::timestamp(c.updatedAtMs));
  return o;
}

const char* kColumns =
    "SELECT id, organization_id, provider, client_id, encrypted_client_secret, created_at_ms, "
    "updated_at_ms FROM oauth2_credentials";

// The fields create and update share, checked; the secret opened and sealed under `id`.
OAuth2Credential fromParams(ActivityContext& ctx, const OAuth2CredentialParameters& p,
                            const std::string& id) {
  OAuth2Credential c;
  c.id = id;
  c.organizationId = ctx.organizationId();
  c.provider = p.provider;
  if (c.provider != "OAUTH2_PROVIDER_X" && c.provider != "OAUTH2_PROVIDER_DISCORD")
    throw invalidArgument("invalid field parameters.provider: \"" + c.provider +
                          "\" (expected OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD)");
  c.clientId = p.clientId;
  if (c.clientId.empty())
    throw invalidArgument("invalid field parameters.clientId: must not be empty");
  c.encryptedClientSecret = p.encryptedClientSecret;
  auto secret = ctx.openClientSecret(c.encryptedClientSecret, "parameters.encryptedClientSecret");
  if (secret.size() == 0)
    throw invalidArgument("invalid field parameters.encryptedClientSecret: the secret is empty");
  oauth2Credentials().seal(ctx.keyring(), clientSecretPart(), id, secret);
  c.createdAtMs = c.updatedAtMs = ctx.nowMs();
  return c;
}

json::Object idResult(const std::string& id) {
  json::Object r = json::object();
  r->set("oauth2CredentialId", id);
  return r;
}

OAuth2Credential requireCredential(RequestContext& ctx, const std::string& id,
                                   const std::string& field) {
  auto c = findOAuth2Credential(ctx.db(), ctx.organizationId(), id);
  if (!c)
    throw notFound("OAuth 2.0 credential " + id + " (" + field + ") not found in organization " +
                   ctx.organizationId());
  return *c;
}
}  // namespace

std::optional<OAuth2Credential> findOAuth2Credential(Db& db, const std::string& organizationId,
                                                     const std::string& id) {
  auto row = db.queryOne(std::string(kColumns) + " WHERE organization_id = ? AND id = ?",
                         {organizationId, id});
  return row ? std::optional<OAuth2Credential>(fromRow(*row)) : std::nullopt;
}

namespace {
using P = OAuth2CredentialParameters;
}  // namespace

const Shape<P> kCreateOauth2Credential = {
    field("provider", &P::provider), field("clientId", &P::clientId, {.displayName = true}),
    field("encryptedClientSecret", &P::encryptedClientSecret)};
const Shape<P> kUpdateOauth2Credential = {
    field("oauth2CredentialId", &P::oauth2CredentialId), field("provider", &P::provider),
    field("clientId", &P::clientId, {.displayName = true}),
    field("encryptedClientSecret", &P::encryptedClientSecret)};
const Shape<P> kDeleteOauth2Credential = {field("oauth2CredentialId", &P::oauth2CredentialId)};

json::Object createOauth2Credential(ActivityContext& ctx, const P& p) {
  oauth2Credentials().requireRoom(ctx.db(), ctx.organizationId());
  auto c = fromParams(ctx, p, ctx.newId());
  ctx.db().exec(
      "INSERT INTO oauth2_credentials (id, organization_id, provider, client_id, "
      "encrypted_client_secret, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
      {c.id, c.organizationId, c.provider, c.clientId, c.encryptedClientSecret, c.createdAtMs,
       c.updatedAtMs});
  return idResult(c.id);
}

json::Object updateOauth2Credential(ActivityContext& ctx, const P& p) {
  const std::string& id = p.oauth2CredentialId;
  auto old = requireCredential(ctx, id, "parameters.oauth2CredentialId");
  auto c = fromParams(ctx, p, id);
  ctx.db().exec(
      "UPDATE oauth2_credentials SET provider = ?, client_id = ?, encrypted_client_secret = ?, "
      "updated_at_ms = ? WHERE organization_id = ? AND id = ?",
      {c.provider, c.clientId, c.encryptedClientSecret, c.updatedAtMs, old.organizationId, id});
  return idResult(id);
}

json::Object deleteOauth2Credential(ActivityContext& ctx, const P& p) {
  const std::string& id = p.oauth2CredentialId;
  requireCredential(ctx, id, "parameters.oauth2CredentialId");
  oauth2Credentials().remove(ctx.db(), ctx.keyring(), ctx.organizationId(), id);
  return idResult(id);
}

json::Object getOauth2Credential(RequestContext& ctx, const json::Object& body) {
  auto c = requireCredential(ctx, json::requireString(body, "oauth2CredentialId", ""),
                             "oauth2CredentialId");
  json::Object r = json::object();
  r->set("oauth2Credential", toJson(c));
  return r;
}

json::Object listOauth2Credentials(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& row : ctx.db().query(
           std::string(kColumns) + " WHERE organization_id = ? ORDER BY created_at_ms, id",
           {ctx.organizationId()}))
    list->add(toJson(fromRow(row)));
  json::Object r = json::object();
  r->set("oauth2Credentials", list);
  return r;
}

}  // namespace sessions
