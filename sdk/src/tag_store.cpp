#include "signet/tag_store.hpp"

#include <set>

#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace signet {

void TagStore::requireTag(Db& db, const std::string& org, const std::string& tagId) const {
  if (!db.queryOne("SELECT 1 FROM " + tagTable + " WHERE organization_id = ? AND id = ?",
                   {org, tagId}))
    throw notFound(noun + " " + tagId + " not found in organization " + org);
}

void TagStore::requireUniqueName(Db& db, const std::string& org, const std::string& name,
                                 const std::string& field) const {
  if (name.empty()) throw invalidArgument("invalid field " + field + ": must not be empty");
  if (auto other = db.queryOne(
          "SELECT id FROM " + tagTable + " WHERE organization_id = ? AND name = ?", {org, name}))
    throw Error(Code::kAlreadyExists, "a " + noun + " named \"" + name +
                                          "\" already exists in organization " + org + " (" +
                                          other->str("id") + ")");
}

size_t TagStore::count(Db& db, const std::string& org) const {
  return static_cast<size_t>(
      db.queryOne("SELECT COUNT(*) AS n FROM " + tagTable + " WHERE organization_id = ?", {org})
          ->i64("n"));
}

namespace {
void addMembers(const TagStore& s, Db& db, const std::string& org, const std::string& tagId,
                const std::vector<std::string>& members) {
  for (const auto& m : members) {
    s.requireMember(db, org, m);
    if (!db.queryOne(
            "SELECT 1 FROM " + s.memberTable + " WHERE tag_id = ? AND " + s.memberColumn + " = ?",
            {tagId, m}))
      db.exec("INSERT INTO " + s.memberTable + " (tag_id, " + s.memberColumn + ") VALUES (?, ?)",
              {tagId, m});
  }
}
}  // namespace

std::string TagStore::create(Db& db, const std::string& org, const std::string& name,
                             const std::vector<std::string>& members, int64_t nowMs) const {
  std::string id = crypto::uuidV4();
  db.exec("INSERT INTO " + tagTable +
              " (id, organization_id, name, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?)",
          {id, org, name, nowMs, nowMs});
  addMembers(*this, db, org, id, members);
  return id;
}

void TagStore::update(Db& db, const std::string& org, const std::string& tagId,
                      const std::optional<std::string>& newName,
                      const std::vector<std::string>& add, const std::vector<std::string>& remove,
                      const std::string& nameField, int64_t nowMs) const {
  requireTag(db, org, tagId);
  if (newName && !newName->empty()) {
    auto current =
        db.queryOne("SELECT name FROM " + tagTable + " WHERE id = ?", {tagId})->str("name");
    if (*newName != current) requireUniqueName(db, org, *newName, nameField);
    db.exec("UPDATE " + tagTable + " SET name = ? WHERE id = ?", {*newName, tagId});
  }
  addMembers(*this, db, org, tagId, add);
  for (const auto& m : remove) {
    requireMember(db, org, m);
    db.exec("DELETE FROM " + memberTable + " WHERE tag_id = ? AND " + memberColumn + " = ?",
            {tagId, m});
  }
  db.exec("UPDATE " + tagTable + " SET updated_at_ms = ? WHERE id = ?", {nowMs, tagId});
}

std::vector<std::string> TagStore::remove(Db& db, const std::string& org,
                                          const std::vector<std::string>& tagIds) const {
  std::set<std::string> affected;
  for (const auto& id : tagIds) {
    requireTag(db, org, id);
    for (const auto& row :
         db.query("SELECT " + memberColumn + " FROM " + memberTable + " WHERE tag_id = ?", {id}))
      affected.insert(row.str(memberColumn));
    db.exec("DELETE FROM " + memberTable + " WHERE tag_id = ?", {id});
    db.exec("DELETE FROM " + tagTable + " WHERE id = ?", {id});
  }
  return {affected.begin(), affected.end()};
}

json::Array TagStore::list(Db& db, const std::string& org) const {
  json::Array list = json::array();
  for (const auto& row : db.query("SELECT id, name, created_at_ms, updated_at_ms FROM " + tagTable +
                                      " WHERE organization_id = ? ORDER BY created_at_ms, id",
                                  {org})) {
    json::Object t = json::object();
    t->set("tagId", row.str("id"));
    t->set("tagName", row.str("name"));
    t->set("tagType", tagType);
    t->set("createdAt", json::timestamp(row.i64("created_at_ms")));
    t->set("updatedAt", json::timestamp(row.i64("updated_at_ms")));
    list->add(t);
  }
  return list;
}

std::vector<std::string> TagStore::tagsOf(Db& db, const std::string& memberId) const {
  std::vector<std::string> out;
  for (const auto& row : db.query(
           "SELECT tag_id FROM " + memberTable + " WHERE " + memberColumn + " = ? ORDER BY tag_id",
           {memberId}))
    out.push_back(row.str("tag_id"));
  return out;
}

}  // namespace signet
