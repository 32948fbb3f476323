#include "keys/secrets.hpp"

#include <algorithm>

#include "keys/export_import.hpp"
#include "signet/bundles.hpp"
#include "signet/error.hpp"
#include "signet/key_params.hpp"
#include "signet/pagination.hpp"

namespace signing {

using namespace signet;

namespace {
constexpr const char* kSuite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1";
constexpr const char* kSecretKind = "secret";
constexpr const char* kTargetKind = "secret-import-target";
constexpr int kMaxSecretsARequest = 50;
constexpr size_t kMaxSecretBytes = 64 * 1024;
constexpr size_t kMaxNameBytes = 256;
constexpr size_t kMaxProperties = 20;
constexpr size_t kMaxDeletes = 32;  // as the API documents

std::string secretId(const std::string& id) {
  return "secret:" + id;
}
// A target is found by the public key import_secrets names, within its organization.
std::string targetId(const std::string& organizationId, const std::string& targetPublicHex) {
  return "secret-import-target:" + organizationId + ":" + targetPublicHex;
}

void requireSuite(const std::string& suite, const std::string& where) {
  if (suite != kSuite)
    throw invalidArgument("invalid field " + where + ".encryptionSuite: \"" + suite +
                          "\" is not supported (only " + kSuite + ")");
}

// Each of parameters.secrets (1 to kMaxSecretsARequest in the one suite), with the path that
// names it in an error.
template <class Secret, class Each>
void forEachSecret(const std::vector<Secret>& secrets, const Each& each) {
  if (secrets.empty() || secrets.size() > static_cast<size_t>(kMaxSecretsARequest))
    throw invalidArgument("invalid field parameters.secrets: " + std::to_string(secrets.size()) +
                          " secrets, where 1 to " + std::to_string(kMaxSecretsARequest) +
                          " are taken");
  for (size_t i = 0; i < secrets.size(); ++i) {
    const std::string at = "parameters.secrets[" + std::to_string(i) + "]";
    requireSuite(secrets[i].encryptionSuite, at);
    each(secrets[i], at);
  }
}

// [{key, value}] as given, checked: bounded, keys unique.
json::Array staticProperties(const std::optional<std::vector<StaticProperty>>& list,
                             const std::string& where) {
  json::Array out = json::array();
  if (!list) return out;
  if (list->size() > kMaxProperties)
    throw invalidArgument("invalid field " + where + ".staticProperties: at most " +
                          std::to_string(kMaxProperties) + " properties");
  std::vector<std::string> keys;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = where + ".staticProperties[" + std::to_string(i) + "]";
    const auto& [key, value] = (*list)[i];
    if (key.empty() || key.size() > kMaxNameBytes || value.size() > kMaxNameBytes)
      throw invalidArgument("invalid field " + at + ": key of 1 to 256 bytes, value of at most " +
                            "256");
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      throw invalidArgument("invalid field " + at + ".key: \"" + key + "\" is repeated");
    keys.push_back(key);
    json::Object copy = json::object();
    copy->set("key", key);
    copy->set("value", value);
    out->add(copy);
  }
  return out;
}

json::Object metadataJson(const Row& r) {
  json::Object m = json::object();
  m->set("secretId", r.str("id"));
  if (!r.isNull("name")) m->set("name", r.str("name"));
  m->set("staticProperties",
         json::parseObject(r.str("static_properties"), "stored static properties")
             ->getArray("staticProperties"));
  m->set("createdAtUnixMs", std::to_string(r.i64("created_at_ms")));
  return m;
}
}  // namespace

const Shape<InitImportSecretsParameters> kInitImportSecrets = {
    field("encryptionSuite", &InitImportSecretsParameters::encryptionSuite),
    field("numSecrets", &InitImportSecretsParameters::numSecrets)};
const Shape<StaticProperty> kStaticProperty = {field("key", &StaticProperty::key),
                                               field("value", &StaticProperty::value)};
const Shape<SecretToImport> kSecretToImport = {
    field("encryptionSuite", &SecretToImport::encryptionSuite),
    field("targetPublicKey", &SecretToImport::targetPublicKey),
    field("secretPayload", &SecretToImport::secretPayload), field("name", &SecretToImport::name),
    field("staticProperties", &SecretToImport::staticProperties, kStaticProperty)};
const Shape<ImportSecretsParameters> kImportSecrets = {
    field("secrets", &ImportSecretsParameters::secrets, kSecretToImport)};
const Shape<SecretToExport> kSecretToExport = {
    field("encryptionSuite", &SecretToExport::encryptionSuite),
    field("secretId", &SecretToExport::secretId),
    field("targetPublicKey", &SecretToExport::targetPublicKey)};
const Shape<ExportSecretsParameters> kExportSecrets = {
    field("secrets", &ExportSecretsParameters::secrets, kSecretToExport)};
const Shape<DeleteSecretsParameters> kDeleteSecrets = {
    field("secretIds", &DeleteSecretsParameters::secretIds)};

json::Object initImportSecrets(ActivityContext& ctx, const InitImportSecretsParameters& p) {
  requireSuite(p.encryptionSuite, "parameters");
  const int64_t n = p.numSecrets;
  if (n < 1 || n > kMaxSecretsARequest)
    throw invalidArgument("invalid field parameters.numSecrets: " + std::to_string(n) +
                          ", where 1 to " + std::to_string(kMaxSecretsARequest) + " are taken");
  json::Array messages = json::array();
  for (int64_t i = 0; i < n; ++i)
    messages->add(newImportTarget(
        ctx,
        [&](const std::string& publicHex) { return targetId(ctx.organizationId(), publicHex); },
        kTargetKind));
  json::Object result = json::object();
  result->set("enclaveTargetMessages", messages);
  return result;
}

json::Object importSecrets(ActivityContext& ctx, const ImportSecretsParameters& p) {
  json::Array ids = json::array();
  std::vector<std::string> names;
  forEachSecret(p.secrets, [&](const SecretToImport& s, const std::string& at) {
    const std::string& targetHex = s.targetPublicKey;
    p256PublicKeyParam(targetHex, at + ".targetPublicKey");
    const auto& name = s.name;
    if (name && (name->empty() || name->size() > kMaxNameBytes))
      throw invalidArgument("invalid field " + at + ".name: 1 to 256 bytes");
    if (name &&
        (std::find(names.begin(), names.end(), *name) != names.end() ||
         ctx.db().queryOne("SELECT 1 FROM signing_secrets WHERE organization_id = ? AND name = ?",
                           {ctx.organizationId(), *name})))
      throw invalidArgument("invalid field " + at + ".name: a secret named \"" + *name +
                            "\" exists in organization " + ctx.organizationId());
    if (name) names.push_back(*name);
    json::Object stored = json::object();  // {"staticProperties": [...]}, as given
    stored->set("staticProperties", staticProperties(s.staticProperties, at));
    auto sealed = bundles::parseSealedJson(s.secretPayload);
    if (!sealed)
      throw invalidArgument("invalid field " + at +
                            ".secretPayload: expected {\"encappedPublic\",\"ciphertext\"}");
    const std::string target = targetId(ctx.organizationId(), targetHex);
    crypto::SecretBytes targetKey;
    try {
      targetKey = ctx.keyring().open(target, kTargetKind);
    } catch (const Error&) {
      throw invalidArgument("invalid field " + at + ".targetPublicKey: no import target " +
                            targetHex.substr(0, 16) + "… of organization " + ctx.organizationId() +
                            " is waiting; run init_import_secrets first");
    }
    auto plain = bundles::open(targetKey, *sealed);
    if (!plain)
      throw invalidArgument("invalid field " + at +
                            ".secretPayload: it was not encrypted to its targetPublicKey");
    if (plain->size() == 0 || plain->size() > kMaxSecretBytes)
      throw invalidArgument("invalid field " + at + ".secretPayload: a secret of 1 to " +
                            std::to_string(kMaxSecretBytes) + " bytes");
    ctx.keyring().erase(target);  // spent; rolled back with the rest should a later one fail
    std::string id = ctx.newId();
    ctx.keyring().seal(secretId(id), kSecretKind, *plain);
    ctx.db().exec(
        "INSERT INTO signing_secrets (id, organization_id, name, static_properties, "
        "created_at_ms) VALUES (?, ?, ?, ?, ?)",
        {id, ctx.organizationId(), name ? SqlValue(*name) : SqlValue(nullptr),
         json::stringify(stored), ctx.nowMs()});
    ids->add(id);
  });
  json::Object result = json::object();
  result->set("secretIds", ids);
  return result;
}

json::Object exportSecrets(ActivityContext& ctx, const ExportSecretsParameters& p) {
  json::Array payloads = json::array();
  forEachSecret(p.secrets, [&](const SecretToExport& s, const std::string& at) {
    const std::string& id = s.secretId;
    Bytes target = p256PublicKeyParam(s.targetPublicKey, at + ".targetPublicKey");
    if (!ctx.db().queryOne("SELECT 1 FROM signing_secrets WHERE organization_id = ? AND id = ?",
                           {ctx.organizationId(), id}))
      throw notFound("secret " + id + " not found in organization " + ctx.organizationId());
    payloads->add(exportBundle(ctx, target, ctx.keyring().open(secretId(id), kSecretKind)));
  });
  json::Object result = json::object();
  result->set("secretPayloads", payloads);
  return result;
}

json::Object deleteSecrets(ActivityContext& ctx, const DeleteSecretsParameters& p) {
  const auto& ids = p.secretIds;
  if (ids.empty() || ids.size() > kMaxDeletes)
    throw invalidArgument("invalid field parameters.secretIds: " + std::to_string(ids.size()) +
                          " ids, where 1 to " + std::to_string(kMaxDeletes) + " are taken");
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string at = "parameters.secretIds[" + std::to_string(i) + "]";
    if (!json::isUuid(ids[i]))
      throw invalidArgument("invalid field " + at + ": \"" + ids[i] + "\" is not a UUID");
    if (std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(i), ids[i]) !=
        ids.begin() + static_cast<std::ptrdiff_t>(i))
      throw invalidArgument("invalid field " + at + ": " + ids[i] + " is repeated");
    // All or none: one that is not this organization's refuses the whole request.
    if (!ctx.db().queryOne("SELECT 1 FROM signing_secrets WHERE organization_id = ? AND id = ?",
                           {ctx.organizationId(), ids[i]}))
      throw invalidArgument("invalid field " + at + ": no secret " + ids[i] + " in organization " +
                            ctx.organizationId());
  }
  json::Array deleted = json::array();
  for (const auto& id : ids) {
    ctx.keyring().erase(secretId(id));
    ctx.db().exec("DELETE FROM signing_secrets WHERE id = ?", {id});
    deleted->add(id);
  }
  json::Object result = json::object();
  result->set("secretIds", deleted);
  return result;
}

json::Object listSecrets(RequestContext& ctx, const json::Object& body) {
  Pagination page = parsePagination(body);
  std::string sql =
      "SELECT id, name, static_properties, created_at_ms FROM signing_secrets WHERE "
      "organization_id = ?";
  SqlParams params{ctx.organizationId()};
  auto rows = queryPage(ctx.db(), sql, params, page, /*newestFirst=*/true,
                        cursorIn(ctx.db(), "signing_secrets", ctx.organizationId(), "a secret"));
  json::Array list = json::array();
  for (const auto& row : rows) list->add(metadataJson(row));
  json::Object r = json::object();
  r->set("secrets", list);
  return r;
}

void deleteOrganizationSecrets(ActivityContext& ctx, const std::string& organizationId) {
  for (const auto& row :
       ctx.db().query("SELECT id FROM signing_secrets WHERE organization_id = ?", {organizationId}))
    ctx.keyring().erase(secretId(row.str("id")));
  ctx.db().exec("DELETE FROM signing_secrets WHERE organization_id = ?", {organizationId});
}

}  // namespace signing
