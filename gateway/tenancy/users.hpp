// Users: create_users (V3, V4), delete_users, update_user, update_user_name,
// update_user_email, update_user_phone_number, list_users.
#pragma once

#include "signet/plugin.hpp"

namespace signet::users {
json::Object createUsers(ActivityContext& ctx, const json::Object& params);
json::Object deleteUsers(ActivityContext& ctx, const json::Object& params);
json::Object updateUser(ActivityContext& ctx, const json::Object& params);
json::Object updateUserName(ActivityContext& ctx, const json::Object& params);
json::Object updateUserEmail(ActivityContext& ctx, const json::Object& params);
json::Object updateUserPhoneNumber(ActivityContext& ctx, const json::Object& params);
json::Object listUsers(RequestContext& ctx, const json::Object& body);
}  // namespace signet::users
