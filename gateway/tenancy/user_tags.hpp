// User tags: create_user_tag, update_user_tag, delete_user_tags, list_user_tags.
#pragma once

#include "signet/plugin.hpp"

namespace signet::user_tags {
// Tags per organization (Turnkey documents these resource limits): 100, or 10 in a
// sub-organization.
inline constexpr size_t kMaxTagsPerOrganization = 100;
inline constexpr size_t kMaxTagsPerSubOrganization = 10;

json::Object createUserTag(ActivityContext& ctx, const json::Object& params);
json::Object updateUserTag(ActivityContext& ctx, const json::Object& params);
json::Object deleteUserTags(ActivityContext& ctx, const json::Object& params);
json::Object listUserTags(RequestContext& ctx, const json::Object& body);
}  // namespace signet::user_tags
