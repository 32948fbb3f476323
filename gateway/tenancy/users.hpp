// Users: create_users (V3, V4), delete_users, update_user, update_user_name,
// update_user_email, update_user_phone_number, list_users.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"
#include "tenancy/user_params.hpp"

namespace signet::users {
struct CreateUsersParameters {
  std::vector<UserParameters> users;
};
struct DeleteUsersParameters {
  std::vector<std::string> userIds;
};
struct UpdateUserParameters {
  std::string userId;
  std::optional<std::string> userName, userEmail, userPhoneNumber;
  std::optional<std::vector<std::string>> userTagIds;
};
struct UpdateUserNameParameters {
  std::string userId, userName;
};
// update_user_email's and update_user_phone_number's: the contact, and a token verifying it.
struct UpdateContactParameters {
  std::string userId;
  std::optional<std::string> userEmail, userPhoneNumber, verificationToken;
};
extern const Shape<CreateUsersParameters> kCreateUsers;
extern const Shape<DeleteUsersParameters> kDeleteUsers;
extern const Shape<UpdateUserParameters> kUpdateUser;
extern const Shape<UpdateUserNameParameters> kUpdateUserName;
extern const Shape<UpdateContactParameters> kUpdateUserEmail, kUpdateUserPhoneNumber;

json::Object createUsers(ActivityContext& ctx, const CreateUsersParameters& params);
json::Object deleteUsers(ActivityContext& ctx, const DeleteUsersParameters& params);
json::Object updateUser(ActivityContext& ctx, const UpdateUserParameters& params);
json::Object updateUserName(ActivityContext& ctx, const UpdateUserNameParameters& params);
json::Object updateUserEmail(ActivityContext& ctx, const UpdateContactParameters& params);
json::Object updateUserPhoneNumber(ActivityContext& ctx, const UpdateContactParameters& params);
json::Object listUsers(RequestContext& ctx, const json::Object& body);
}  // namespace signet::users
