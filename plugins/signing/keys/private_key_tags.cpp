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

using PCreate = CreatePrivateKeyTagParameters;
const Shape<PCreate> kCreatePrivateKeyTag = {
    field("privateKeyTagName", &PCreate::privateKeyTagName, {.displayName = true}),
    field("privateKeyIds", &PCreate::privateKeyIds)};
using PUpdate = UpdatePrivateKeyTagParameters;
const Shape<PUpdate> kUpdatePrivateKeyTag = {
    field("privateKeyTagId", &PUpdate::privateKeyTagId),
    field("newPrivateKeyTagName", &PUpdate::newPrivateKeyTagName, {.displayName = true}),
    field("addPrivateKeyIds", &PUpdate::addPrivateKeyIds),
    field("removePrivateKeyIds", &PUpdate::removePrivateKeyIds)};
const Shape<DeletePrivateKeyTagsParameters> kDeletePrivateKeyTags = {
    field("privateKeyTagIds", &DeletePrivateKeyTagsParameters::privateKeyTagIds)};

Object createPrivateKeyTag(ActivityContext& ctx, const CreatePrivateKeyTagParameters& p) {
  const std::string& name = p.privateKeyTagName;
  const auto& ids = p.privateKeyIds;
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

Object updatePrivateKeyTag(ActivityContext& ctx, const UpdatePrivateKeyTagParameters& p) {
  const std::string& id = p.privateKeyTagId;
  privateKeyTags().update(ctx.db(), ctx.organizationId(), id, p.newPrivateKeyTagName,
                          p.addPrivateKeyIds.value_or(std::vector<std::string>{}),
                          p.removePrivateKeyIds.value_or(std::vector<std::string>{}),
                          "parameters.newPrivateKeyTagName", ctx.nowMs());
  Object r = json::object();
  r->set("privateKeyTagId", id);
  return r;
}

Object deletePrivateKeyTags(ActivityContext& ctx, const DeletePrivateKeyTagsParameters& p) {
  const auto& ids = p.privateKeyTagIds;
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
