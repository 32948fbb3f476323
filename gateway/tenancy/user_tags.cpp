#include "tenancy/user_tags.hpp"

#include <set>

#include "tenancy/directory.hpp"

namespace signet::user_tags {

namespace {
void requireTag(Db& db, const std::string& organizationId, const std::string& tagId) {
  if (!db.queryOne("SELECT 1 FROM user_tags WHERE organization_id = ? AND id = ?",
                   {organizationId, tagId}))
    throw notFound("user tag " + tagId + " not found in organization " + organizationId);
}

void requireUniqueName(Db& db, const std::string& organizationId, const std::string& name,
                       const std::string& field) {
  if (name.empty()) throw invalidArgument("invalid field " + field + ": must not be empty");
  if (auto other = db.queryOne("SELECT id FROM user_tags WHERE organization_id = ? AND name = ?",
                               {organizationId, name}))
    throw Error(Code::kAlreadyExists, "a user tag named \"" + name +
                                          "\" already exists in "
                                          "organization " +
                                          organizationId + " (" + other->str(0) + ")");
}

void addMembers(Db& db, const std::string& organizationId, const std::string& tagId,
                const std::vector<std::string>& userIds) {
  for (const auto& userId : userIds) {
    directory::requireUser(db, organizationId, userId);
    if (!db.queryOne("SELECT 1 FROM user_tag_members WHERE tag_id = ? AND user_id = ?",
                     {tagId, userId}))
      db.exec("INSERT INTO user_tag_members (tag_id, user_id) VALUES (?, ?)", {tagId, userId});
  }
}
}  // namespace

json::Object createUserTag(ActivityContext& ctx, const json::Object& params) {
  std::string name = json::requireString(params, "userTagName", "parameters");
  auto userIds = json::requireStringArray(params, "userIds", "parameters");
  Db& db = ctx.db();
  requireUniqueName(db, ctx.organizationId(), name, "parameters.userTagName");
  auto org = directory::requireOrganization(db, ctx.organizationId());
  size_t cap = org.parentId ? kMaxTagsPerSubOrganization : kMaxTagsPerOrganization;
  auto count =
      db.queryOne("SELECT COUNT(*) FROM user_tags WHERE organization_id = ?", {org.id})->i64(0);
  if (static_cast<size_t>(count) >= cap)
    throw resourceExhausted("organization " + org.id + " already has " + std::to_string(count) +
                            " user tags, the limit for " +
                            (org.parentId ? "a sub-organization" : "an organization") + " is " +
                            std::to_string(cap));
  std::string id = crypto::uuidV4();
  db.exec(
      "INSERT INTO user_tags (id, organization_id, name, created_at_ms, updated_at_ms) VALUES "
      "(?, ?, ?, ?, ?)",
      {id, org.id, name, ctx.nowMs(), ctx.nowMs()});
  addMembers(db, org.id, id, userIds);
  json::Object r = json::object();
  r->set("userTagId", id);
  r->set("userIds", json::stringArray(userIds));
  return r;
}

json::Object updateUserTag(ActivityContext& ctx, const json::Object& params) {
  std::string id = json::requireString(params, "userTagId", "parameters");
  auto add = json::optionalStringArray(params, "addUserIds", "parameters");
  auto remove = json::optionalStringArray(params, "removeUserIds", "parameters");
  Db& db = ctx.db();
  requireTag(db, ctx.organizationId(), id);
  if (auto name = json::optionalString(params, "newUserTagName", "parameters");
      name && !name->empty()) {
    auto current = db.queryOne("SELECT name FROM user_tags WHERE id = ?", {id})->str(0);
    if (*name != current)
      requireUniqueName(db, ctx.organizationId(), *name, "parameters.newUserTagName");
    db.exec("UPDATE user_tags SET name = ?, updated_at_ms = ? WHERE id = ?",
            {*name, ctx.nowMs(), id});
  }
  addMembers(db, ctx.organizationId(), id, add);
  for (const auto& userId : remove) {
    directory::requireUser(db, ctx.organizationId(), userId);
    db.exec("DELETE FROM user_tag_members WHERE tag_id = ? AND user_id = ?", {id, userId});
  }
  db.exec("UPDATE user_tags SET updated_at_ms = ? WHERE id = ?", {ctx.nowMs(), id});
  json::Object r = json::object();
  r->set("userTagId", id);
  return r;
}

json::Object deleteUserTags(ActivityContext& ctx, const json::Object& params) {
  auto ids = json::requireStringArray(params, "userTagIds", "parameters");
  if (ids.empty()) throw invalidArgument("invalid field parameters.userTagIds: must not be empty");
  Db& db = ctx.db();
  std::set<std::string> affected;
  for (const auto& id : ids) {
    requireTag(db, ctx.organizationId(), id);
    for (const auto& row : db.query("SELECT user_id FROM user_tag_members WHERE tag_id = ?", {id}))
      affected.insert(row.str(0));
    db.exec("DELETE FROM user_tag_members WHERE tag_id = ?", {id});
    db.exec("DELETE FROM user_tags WHERE id = ?", {id});
  }
  json::Object r = json::object();
  r->set("userTagIds", json::stringArray(ids));
  r->set("userIds", json::stringArray({affected.begin(), affected.end()}));
  return r;
}

json::Object listUserTags(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& row : ctx.db().query("SELECT id, name, created_at_ms, updated_at_ms FROM "
                                        "user_tags WHERE organization_id = ? ORDER BY "
                                        "created_at_ms, id",
                                        {ctx.organizationId()})) {
    json::Object t = json::object();
    t->set("tagId", row.str(0));
    t->set("tagName", row.str(1));
    t->set("tagType", "TAG_TYPE_USER");
    t->set("createdAt", json::timestamp(row.i64(2)));
    t->set("updatedAt", json::timestamp(row.i64(3)));
    list->add(t);
  }
  json::Object r = json::object();
  r->set("userTags", list);
  return r;
}

}  // namespace signet::user_tags
