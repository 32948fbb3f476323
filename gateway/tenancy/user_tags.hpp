// User tags: create_user_tag, update_user_tag, delete_user_tags, list_user_tags.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet::user_tags {
// Tags per organization (Turnkey documents these resource limits): 100, or 10 in a
// sub-organization.
inline constexpr size_t kMaxTagsPerOrganization = 100;
inline constexpr size_t kMaxTagsPerSubOrganization = 10;

struct CreateUserTagParameters {
  std::string userTagName;
  std::vector<std::string> userIds;
};
struct UpdateUserTagParameters {
  std::string userTagId;
  std::optional<std::string> newUserTagName;
  std::optional<std::vector<std::string>> addUserIds, removeUserIds;
};
struct DeleteUserTagsParameters {
  std::vector<std::string> userTagIds;
};
extern const Shape<CreateUserTagParameters> kCreateUserTag;
extern const Shape<UpdateUserTagParameters> kUpdateUserTag;
extern const Shape<DeleteUserTagsParameters> kDeleteUserTags;

json::Object createUserTag(ActivityContext& ctx, const CreateUserTagParameters& params);
json::Object updateUserTag(ActivityContext& ctx, const UpdateUserTagParameters& params);
json::Object deleteUserTags(ActivityContext& ctx, const DeleteUserTagsParameters& params);
json::Object listUserTags(RequestContext& ctx, const json::Object& body);
}  // namespace signet::user_tags
