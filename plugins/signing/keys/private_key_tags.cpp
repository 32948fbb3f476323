#include "keys/private_key_tags.hpp"

namespace signing {

using namespace signet;
using json::Object;

const TagStore& privateKeyTags() {
  static const TagStore s{
      "signing_private_key_tags",
      "signing_private_key_tag_members",
      "private_key_id",
      "private key tag",
      "TAG_TYPE_PRIVATE_KEY",
      [](Db& db, const std::string& org, const std::string& keyId) {
        if (!db.queryOne("SELECT 1 FROM signing_private_keys WHERE organization_id = ? AND id = ?",
                         {org, keyId}))
          throw notFound("private key " + keyId + " not found in organization " + org);
      }};
  return s;
}

Object createPrivateKeyTag(ActivityContext& ctx, const Object& p) {
  std::string name = json::requireName(p, "privateKeyTagName", "parameters");
  auto ids = json::requireStringArray(p, "privateKeyIds", "parameters");
  privateKeyTags().requireUniqueName(ctx.db(), ctx.organizationId(), name,
                                     "parameters.privateKeyTagName");
  if (privateKeyTags().count(ctx.db(), ctx.organizationId()) >= kMaxPrivateKeyTagsPerOrganization)
    throw resourceExhausted("organization " + ctx.organizationId() + " already has " +
                            std::to_string(kMaxPrivateKeyTagsPerOrganization) +
                            " private key tags, the limit");
  Object r = json::object();
  r->set("privateKeyTagId",
         privateKeyTags().create(ctx.db(), ctx.organizationId(), name, ids, ctx.nowMs()));
  r->set("privateKeyIds", json::stringArray(ids));
  return r;
}

Object updatePrivateKeyTag(ActivityContext& ctx, const Object& p) {
  std::string id = json::requireString(p, "privateKeyTagId", "parameters");
  privateKeyTags().update(ctx.db(), ctx.organizationId(), id,
                          json::optionalName(p, "newPrivateKeyTagName", "parameters"),
                          json::optionalStringArray(p, "addPrivateKeyIds", "parameters"),
                          json::optionalStringArray(p, "removePrivateKeyIds", "parameters"),
                          "parameters.newPrivateKeyTagName", ctx.nowMs());
  Object r = json::object();
  r->set("privateKeyTagId", id);
  return r;
}

Object deletePrivateKeyTags(ActivityContext& ctx, const Object& p) {
  auto ids = json::requireStringArray(p, "privateKeyTagIds", "parameters");
  if (ids.empty())
    throw invalidArgument("invalid field parameters.privateKeyTagIds: must not be empty");
  Object r = json::object();
  r->set("privateKeyIds",
         json::stringArray(privateKeyTags().remove(ctx.db(), ctx.organizationId(), ids)));
  r->set("privateKeyTagIds", json::stringArray(ids));
  return r;
}

Object listPrivateKeyTags(RequestContext& ctx, const Object&) {
  Object r = json::object();
  r->set("privateKeyTags", privateKeyTags().list(ctx.db(), ctx.organizationId()));
  return r;
}

}  // namespace signing
