#include "keys/private_keys.hpp"

#include "keys/addresses.hpp"
#include "keys/key_material.hpp"
#include "keys/private_key_tags.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
constexpr size_t kMaxKeysPerRequest = 100;
constexpr const char* kColumns =
    "id, name, curve, public_key, exported, imported, created_at_ms, updated_at_ms";

Object keyJson(RequestContext& ctx, const Row& r) {
  Object o = json::object();
  o->set("privateKeyId", r.str("id"));
  o->set("privateKeyName", r.str("name"));
  o->set("curve", r.str("curve"));
  crypto::Curve curve = curveFromApi(r.str("curve"), "curve");
  // secp256k1 keys are shown uncompressed, as clients (cosmjs) expect.
  o->set("publicKey", curve == crypto::Curve::kSecp256k1
                          ? toHex(crypto::uncompressPublicKey(curve, *fromHex(r.str("public_key"))))
                          : r.str("public_key"));
  json::Array addresses = json::array();
  for (const auto& a : ctx.db().query("SELECT address_format, address FROM "
                                      "signing_private_key_addresses WHERE private_key_id = ? "
                                      "ORDER BY address_format",
                                      {r.str("id")})) {
    Object x = json::object();
    x->set("format", a.str("address_format"));
    x->set("address", a.str("address"));
    addresses->add(x);
  }
  o->set("addresses", addresses);
  o->set("privateKeyTags", json::stringArray(privateKeyTags().tagsOf(ctx.db(), r.str("id"))));
  o->set("createdAt", json::timestamp(r.i64("created_at_ms")));
  o->set("updatedAt", json::timestamp(r.i64("updated_at_ms")));
  o->set("exported", r.i64("exported") != 0);
  o->set("imported", r.i64("imported") != 0);
  return o;
}
}  // namespace

std::pair<std::string, json::Array> storePrivateKey(ActivityContext& ctx, const std::string& name,
                                                    const std::string& curveName,
                                                    const crypto::SecretBytes& priv,
                                                    const std::vector<std::string>& formats,
                                                    bool imported) {
  crypto::Curve curve = curveFromApi(curveName, "curve");
  std::string id = ctx.newId();
  Bytes pub = crypto::publicKeyFromPrivate(curve, priv);
  ctx.keyring().seal(privateKeySecretId(id), kPrivateKeyKind, crypto::SecretBytes(priv.bytes()));
  ctx.db().exec(
      "INSERT INTO signing_private_keys (id, organization_id, name, curve, public_key, "
      "exported, imported, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
      {id, ctx.organizationId(), name, curveName, toHex(pub), imported ? 1 : 0, ctx.nowMs(),
       ctx.nowMs()});
  json::Array addresses = json::array();
  for (const auto& format : formats) {
    std::string address = addressFor(format, curve, pub);
    ctx.db().exec(
        "INSERT INTO signing_private_key_addresses (private_key_id, organization_id, "
        "address_format, address) VALUES (?, ?, ?, ?)",
        {id, ctx.organizationId(), format, address});
    Object a = json::object();
    a->set("format", format);
    a->set("address", address);
    addresses->add(a);
  }
  return {id, addresses};
}

const Shape<PrivateKeyParameters> kPrivateKey = {
    field("privateKeyName", &PrivateKeyParameters::privateKeyName, {.displayName = true}),
    field("curve", &PrivateKeyParameters::curve),
    field("addressFormats", &PrivateKeyParameters::addressFormats),
    field("privateKeyTags", &PrivateKeyParameters::privateKeyTags)};
const Shape<CreatePrivateKeysParameters> kCreatePrivateKeys = {
    field("privateKeys", &CreatePrivateKeysParameters::privateKeys, kPrivateKey)};
const Shape<DeletePrivateKeysParameters> kDeletePrivateKeys = {
    field("privateKeyIds", &DeletePrivateKeysParameters::privateKeyIds),
    field("deleteWithoutExport", &DeletePrivateKeysParameters::deleteWithoutExport)};

Object createPrivateKeys(ActivityContext& ctx, const CreatePrivateKeysParameters& p) {
  const auto& list = p.privateKeys;
  if (list.empty() || list.size() > kMaxKeysPerRequest)
    throw invalidArgument("invalid field parameters.privateKeys: 1 to " +
                          std::to_string(kMaxKeysPerRequest) + " keys, got " +
                          std::to_string(list.size()));
  struct Wanted {
    std::string name, curveName;
    crypto::Curve curve;
    std::vector<std::string> formats;
    std::vector<std::string> tags;
  };
  std::vector<Wanted> wanted;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string f = "parameters.privateKeys[" + std::to_string(i) + "]";
    const PrivateKeyParameters& k = list[i];
    Wanted w;
    w.name = k.privateKeyName;
    w.curveName = k.curve;
    w.curve = curveFromApi(w.curveName, f + ".curve");
    w.formats = k.addressFormats;
    w.tags = k.privateKeyTags;
    for (const auto& format : w.formats)
      requireFormatForCurve(format, w.curve, w.curveName, f + ".addressFormats");
    if (w.name.empty()) throw invalidArgument("invalid field " + f + ".privateKeyName: empty");
    wanted.push_back(std::move(w));
  }
  json::Array out = json::array();
  for (const auto& w : wanted) {
    if (ctx.db().queryOne("SELECT 1 FROM signing_private_keys WHERE organization_id = ? AND "
                          "name = ?",
                          {ctx.organizationId(), w.name}))
      throw Error(Code::kAlreadyExists, "a private key named \"" + w.name +
                                            "\" already exists in organization " +
                                            ctx.organizationId());
    auto priv = crypto::generatePrivateKey(w.curve);
    auto [id, addresses] = storePrivateKey(ctx, w.name, w.curveName, priv, w.formats, false);
    for (const auto& tag : w.tags)
      privateKeyTags().update(ctx.db(), ctx.organizationId(), tag, std::nullopt, {id}, {},
                              "parameters.privateKeys.privateKeyTags", ctx.nowMs());
    Object k = json::object();
    k->set("privateKeyId", id);
    k->set("addresses", addresses);
    out->add(k);
  }
  Object result = json::object();
  result->set("privateKeys", out);
  return result;
}

Object deletePrivateKeys(ActivityContext& ctx, const DeletePrivateKeysParameters& p) {
  const auto& ids = p.privateKeyIds;
  const bool force = p.deleteWithoutExport.value_or(false);
  if (ids.empty())
    throw invalidArgument("invalid field parameters.privateKeyIds: must not be empty");
  for (const auto& id : ids) {
    auto row = ctx.db().queryOne(
        "SELECT exported FROM signing_private_keys WHERE organization_id = ? AND id = ?",
        {ctx.organizationId(), id});
    if (!row)
      throw notFound("private key " + id + " not found in organization " + ctx.organizationId());
    if (!force && row->i64("exported") == 0)
      throw failedPrecondition("private key " + id +
                               " has not been exported; export it first or set "
                               "deleteWithoutExport to delete it anyway");
    ctx.db().exec("DELETE FROM signing_private_key_addresses WHERE private_key_id = ?", {id});
    ctx.db().exec("DELETE FROM signing_private_key_tag_members WHERE private_key_id = ?", {id});
    ctx.db().exec("DELETE FROM signing_private_keys WHERE id = ?", {id});
    ctx.keyring().erase(privateKeySecretId(id));
  }
  Object result = json::object();
  result->set("privateKeyIds", json::stringArray(ids));
  return result;
}

Object getPrivateKey(RequestContext& ctx, const Object& body) {
  std::string id = json::requireString(body, "privateKeyId", "");
  auto row =
      ctx.db().queryOne(std::string("SELECT ") + kColumns +
                            " FROM signing_private_keys WHERE organization_id = ? AND id = ?",
                        {ctx.organizationId(), id});
  if (!row)
    throw notFound("private key " + id + " not found in organization " + ctx.organizationId());
  Object out = json::object();
  out->set("privateKey", keyJson(ctx, *row));
  return out;
}

Object listPrivateKeys(RequestContext& ctx, const Object&) {
  json::Array list = json::array();
  for (const auto& r : ctx.db().query(std::string("SELECT ") + kColumns +
                                          " FROM signing_private_keys WHERE organization_id = ? "
                                          "ORDER BY created_at_ms, id",
                                      {ctx.organizationId()}))
    list->add(keyJson(ctx, r));
  Object out = json::object();
  out->set("privateKeys", list);
  return out;
}

}  // namespace signing
