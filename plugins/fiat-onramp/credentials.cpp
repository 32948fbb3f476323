#include "credentials.hpp"

#include "cdp_key.hpp"
#include "purchase.hpp"

namespace fiat_onramp {

using namespace signet;

const SealedCredentials& sealedCredentials() {
  static const SealedCredentials store{
      .table = "fiat_onramp_credentials",
      .idColumn = "id",
      .noun = "fiat on-ramp credential",
      .maxPerOrganization = 20,
      .parts = {{.prefix = "", .suffix = ":secret", .kind = "fiat-onramp-secret"},
                {.prefix = "", .suffix = ":private", .kind = "fiat-onramp-private"}}};
  return store;
}
const SealedCredentials::Part& secretPart() {
  return sealedCredentials().parts[0];
}
const SealedCredentials::Part& privatePart() {
  return sealedCredentials().parts[1];
}

namespace {
const char* kColumns =
    "SELECT id, organization_id, provider, project_id, publishable_api_key, "
    "encrypted_secret_api_key, encrypted_private_api_key, sandbox_mode, created_at_ms, "
    "updated_at_ms FROM fiat_onramp_credentials";

Credential fromRow(const Row& r) {
  return {r.str("id"),
          r.str("organization_id"),
          r.str("provider"),
          r.str("project_id"),
          r.str("publishable_api_key"),
          r.str("encrypted_secret_api_key"),
          r.str("encrypted_private_api_key"),
          r.i64("sandbox_mode") != 0,
          r.i64("created_at_ms"),
          r.i64("updated_at_ms")};
}

// The intent's casing: fiatOnrampCredentialId; the result's: fiatOnRampCredentialId.
json::Object idResult(const std::string& id) {
  json::Object r = json::object();
  r->set("fiatOnRampCredentialId", id);
  return r;
}

json::Object toJson(const Credential& c) {
  json::Object o = json::object();
  o->set("fiatOnrampCredentialId", c.id);
  o->set("organizationId", c.organizationId);
  o->set("onrampProvider", c.provider);
  if (!c.projectId.empty()) o->set("projectId", c.projectId);
  o->set("publishableApiKey", c.publishableApiKey);
  o->set("encryptedSecretApiKey", c.encryptedSecretApiKey);
  if (!c.encryptedPrivateApiKey.empty()) o->set("encryptedPrivateApiKey", c.encryptedPrivateApiKey);
  o->set("sandboxMode", c.sandboxMode);
  o->set("createdAt", json::timestamp(c.createdAtMs));
  o->set("updatedAt", json::timestamp(c.updatedAtMs));
  return o;
}

// An optional key's bound; the required ones' is their shape's.
std::string bounded(const std::optional<std::string>& v, const char* key) {
  if (v && v->size() > 4096)
    throw invalidArgument(std::string("invalid field parameters.") + key +
                          ": 1 to 4096 characters");
  return v.value_or("");
}

// The fields create and update share, checked; the keys opened and sealed under `id`. A
// Coinbase private key is parsed here, so that a key that cannot sign is refused now rather
// than at the first purchase.
Credential fromParams(ActivityContext& ctx, const CredentialParameters& p, const std::string& id,
                      bool sandboxMode) {
  Credential c;
  c.id = id;
  c.organizationId = ctx.organizationId();
  c.provider = checkProvider(p.onrampProvider, "parameters.onrampProvider");
  c.projectId = bounded(p.projectId, "projectId");
  c.publishableApiKey = p.publishableApiKey;
  c.encryptedSecretApiKey = p.encryptedSecretApiKey;
  c.encryptedPrivateApiKey = bounded(p.encryptedPrivateApiKey, "encryptedPrivateApiKey");
  c.sandboxMode = sandboxMode;
  bool coinbase = c.provider == kCoinbase;
  if (coinbase && c.projectId.empty())
    throw invalidArgument("missing field parameters.projectId: " + std::string(kCoinbase) +
                          " needs the CDP project id");
  if (coinbase && c.encryptedPrivateApiKey.empty())
    throw invalidArgument("missing field parameters.encryptedPrivateApiKey: " +
                          std::string(kCoinbase) + " needs the CDP secret API key's private key");
  if (!coinbase && !c.encryptedPrivateApiKey.empty())
    throw invalidArgument("invalid field parameters.encryptedPrivateApiKey: " +
                          std::string(kMoonPay) + " takes no private key");

  auto secret = ctx.openOnRampSecret(c.encryptedSecretApiKey, "parameters.encryptedSecretApiKey");
  if (secret.size() == 0)
    throw invalidArgument("invalid field parameters.encryptedSecretApiKey: the key is empty");
  sealedCredentials().seal(ctx.keyring(), secretPart(), id, secret);
  if (coinbase) {
    auto priv = ctx.openOnRampSecret(c.encryptedPrivateApiKey, "parameters.encryptedPrivateApiKey");
    CdpKey::parse(priv, "parameters.encryptedPrivateApiKey");
    sealedCredentials().seal(ctx.keyring(), privatePart(), id, priv);
  } else {
    sealedCredentials().erase(ctx.keyring(), privatePart(), id);
  }
  c.createdAtMs = c.updatedAtMs = ctx.nowMs();
  return c;
}

Credential requireCredential(RequestContext& ctx, const CredentialParameters& p) {
  const std::string& id = p.fiatOnrampCredentialId;
  auto c = findCredential(ctx.db(), ctx.organizationId(), id);
  if (!c)
    throw notFound("fiat on-ramp credential " + id +
                   " (parameters.fiatOnrampCredentialId) not found in organization " +
                   ctx.organizationId());
  return *c;
}
}  // namespace

std::optional<Credential> findCredential(Db& db, const std::string& organizationId,
                                         const std::string& id) {
  auto row = db.queryOne(std::string(kColumns) + " WHERE organization_id = ? AND id = ?",
                         {organizationId, id});
  return row ? std::optional(fromRow(*row)) : std::nullopt;
}

std::optional<Credential> credentialFor(Db& db, const std::string& organizationId,
                                        const std::string& provider, bool sandboxMode) {
  auto row = db.queryOne(std::string(kColumns) +
                             " WHERE organization_id = ? AND provider = ? AND sandbox_mode = ? "
                             "ORDER BY updated_at_ms DESC, id LIMIT 1",
                         {organizationId, provider, int64_t{sandboxMode ? 1 : 0}});
  return row ? std::optional(fromRow(*row)) : std::nullopt;
}

namespace {
using P = CredentialParameters;
}  // namespace

const Shape<P> kCreateCredential = {
    field("onrampProvider", &P::onrampProvider),
    field("projectId", &P::projectId),
    field("publishableApiKey", &P::publishableApiKey, {.maxLength = 4096}),
    field("encryptedSecretApiKey", &P::encryptedSecretApiKey, {.maxLength = 4096}),
    field("encryptedPrivateApiKey", &P::encryptedPrivateApiKey),
    field("sandboxMode", &P::sandboxMode)};
const Shape<P> kUpdateCredential = {
    field("fiatOnrampCredentialId", &P::fiatOnrampCredentialId, {.uuid = true}),
    field("onrampProvider", &P::onrampProvider),
    field("projectId", &P::projectId),
    field("publishableApiKey", &P::publishableApiKey, {.maxLength = 4096}),
    field("encryptedSecretApiKey", &P::encryptedSecretApiKey, {.maxLength = 4096}),
    field("encryptedPrivateApiKey", &P::encryptedPrivateApiKey)};
const Shape<P> kDeleteCredential = {
    field("fiatOnrampCredentialId", &P::fiatOnrampCredentialId, {.uuid = true})};

json::Object createCredential(ActivityContext& ctx, const P& p) {
  sealedCredentials().requireRoom(ctx.db(), ctx.organizationId());
  auto c = fromParams(ctx, p, ctx.newId(), p.sandboxMode.value_or(false));
  ctx.db().exec(
      "INSERT INTO fiat_onramp_credentials (id, organization_id, provider, project_id, "
      "publishable_api_key, encrypted_secret_api_key, encrypted_private_api_key, sandbox_mode, "
      "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {c.id, c.organizationId, c.provider, c.projectId, c.publishableApiKey,
       c.encryptedSecretApiKey, c.encryptedPrivateApiKey, int64_t{c.sandboxMode ? 1 : 0},
       c.createdAtMs, c.updatedAtMs});
  return idResult(c.id);
}

// The update intent has no sandboxMode: a credential keeps the mode it was created in.
json::Object updateCredential(ActivityContext& ctx, const P& p) {
  auto old = requireCredential(ctx, p);
  auto c = fromParams(ctx, p, old.id, old.sandboxMode);
  ctx.db().exec(
      "UPDATE fiat_onramp_credentials SET provider = ?, project_id = ?, publishable_api_key = ?, "
      "encrypted_secret_api_key = ?, encrypted_private_api_key = ?, updated_at_ms = ? WHERE "
      "organization_id = ? AND id = ?",
      {c.provider, c.projectId, c.publishableApiKey, c.encryptedSecretApiKey,
       c.encryptedPrivateApiKey, c.updatedAtMs, old.organizationId, old.id});
  return idResult(old.id);
}

json::Object deleteCredential(ActivityContext& ctx, const P& p) {
  auto c = requireCredential(ctx, p);
  sealedCredentials().remove(ctx.db(), ctx.keyring(), c.organizationId, c.id);
  return idResult(c.id);
}

json::Object listCredentials(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& row : ctx.db().query(
           std::string(kColumns) + " WHERE organization_id = ? ORDER BY created_at_ms, id",
           {ctx.organizationId()}))
    list->add(toJson(fromRow(row)));
  json::Object r = json::object();
  r->set("fiatOnRampCredentials", list);
  return r;
}

}  // namespace fiat_onramp
