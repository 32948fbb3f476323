// Named tags over a module's records (user tags in the core, private-key tags in the signing
// plugin): a tag table (id, organization_id, name, created_at_ms, updated_at_ms) and a
// membership table (tag_id, <member column>). Names are unique per organization; members
// must exist (checked by `requireMember`, which throws NotFound).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "signet/db.hpp"
#include "signet/json.hpp"

namespace signet {

struct TagStore {
  std::string tagTable;      // user_tags
  std::string memberTable;   // user_tag_members
  std::string memberColumn;  // user_id
  std::string noun;          // "user tag"
  std::string tagType;       // TAG_TYPE_USER
  std::function<void(Db&, const std::string& organizationId, const std::string& memberId)>
      requireMember;

  void requireTag(Db& db, const std::string& organizationId, const std::string& tagId) const;
  // Refuses an empty or taken name (AlreadyExists naming the other tag).
  void requireUniqueName(Db& db, const std::string& organizationId, const std::string& name,
                         const std::string& field) const;
  size_t count(Db& db, const std::string& organizationId) const;
  std::string create(Db& db, const std::string& organizationId, const std::string& name,
                     const std::vector<std::string>& members, int64_t nowMs) const;
  void update(Db& db, const std::string& organizationId, const std::string& tagId,
              const std::optional<std::string>& newName, const std::vector<std::string>& add,
              const std::vector<std::string>& remove, const std::string& nameField,
              int64_t nowMs) const;
  // Deletes the tags; returns the members they had (sorted, unique).
  std::vector<std::string> remove(Db& db, const std::string& organizationId,
                                  const std::vector<std::string>& tagIds) const;
  // [{tagId, tagName, tagType, createdAt, updatedAt}] of the organization, oldest first.
  json::Array list(Db& db, const std::string& organizationId) const;
  // The tag ids a member carries.
  std::vector<std::string> tagsOf(Db& db, const std::string& memberId) const;
};

}  // namespace signet
