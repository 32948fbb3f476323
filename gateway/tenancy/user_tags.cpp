#include "tenancy/user_tags.hpp"

#include "signet/tag_store.hpp"
#include "tenancy/directory.hpp"

namespace signet::user_tags {

namespace {
const TagStore& store() {
  static const TagStore s{"user_tags",
                          "user_tag_members",
                          "user_id",
                          "user tag",
                          "TAG_TYPE_USER",
                          [](Db& db, const std::string& org, const std::string& userId) {
                            directory::requireUser(db, org, userId);
                          }};
  return s;
}
}  // namespace

const Shape<CreateUserTagParameters> kCreateUserTag = {
    field("userTagName", &CreateUserTagParameters::userTagName, {.displayName = true}),
    field("userIds", &CreateUserTagParameters::userIds)};
const Shape<UpdateUserTagParameters> kUpdateUserTag = {
    field("userTagId", &UpdateUserTagParameters::userTagId),
    field("newUserTagName", &UpdateUserTagParameters::newUserTagName, {.displayName = true}),
    field("addUserIds", &UpdateUserTagParameters::addUserIds),
    field("removeUserIds", &UpdateUserTagParameters::removeUserIds)};
const Shape<DeleteUserTagsParameters> kDeleteUserTags = {
    field("userTagIds", &DeleteUserTagsParameters::userTagIds)};

json::Object createUserTag(ActivityContext& ctx, const CreateUserTagParameters& params) {
  const std::string& name = params.userTagName;
  const auto& userIds = params.userIds;
  Db& db = ctx.db();
  store().requireUniqueName(db, ctx.organizationId(), name, "parameters.userTagName");
  auto org = directory::requireOrganization(db, ctx.organizationId());
  size_t cap = org.parentId ? kMaxTagsPerSubOrganization : kMaxTagsPerOrganization;
  size_t count = store().count(db, org.id);
  if (count >= cap)
    throw resourceExhausted("organization " + org.id + " already has " + std::to_string(count) +
                            " user tags, the limit for " +
                            (org.parentId ? "a sub-organization" : "an organization") + " is " +
                            std::to_string(cap));
  json::Object r = json::object();
  r->set("userTagId", store().create(db, org.id, name, userIds, ctx.nowMs()));
  r->set("userIds", json::stringArray(userIds));
  return r;
}

json::Object updateUserTag(ActivityContext& ctx, const UpdateUserTagParameters& params) {
  const std::string& id = params.userTagId;
  store().update(ctx.db(), ctx.organizationId(), id, params.newUserTagName,
                 params.addUserIds.value_or(std::vector<std::string>{}),
                 params.removeUserIds.value_or(std::vector<std::string>{}),
                 "parameters.newUserTagName", ctx.nowMs());
  json::Object r = json::object();
  r->set("userTagId", id);
  return r;
}

json::Object deleteUserTags(ActivityContext& ctx, const DeleteUserTagsParameters& params) {
  const auto& ids = params.userTagIds;
  if (ids.empty()) throw invalidArgument("invalid field parameters.userTagIds: must not be empty");
  json::Object r = json::object();
  r->set("userIds", json::stringArray(store().remove(ctx.db(), ctx.organizationId(), ids)));
  r->set("userTagIds", json::stringArray(ids));
  return r;
}

json::Object listUserTags(RequestContext& ctx, const json::Object&) {
  json::Object r = json::object();
  r->set("userTags", store().list(ctx.db(), ctx.organizationId()));
  return r;
}

}  // namespace signet::user_tags
