#include "tenancy/users.hpp"

#include <algorithm>
#include <set>

#include "tenancy/contacts.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/user_params.hpp"

namespace signet::users {

namespace {
json::Object userIdResult(const std::string& userId) {
  json::Object r = json::object();
  r->set("userId", userId);
  return r;
}

// Applies a new email or phone number: empty removes it; a verification token for the same
// contact marks it verified, any change without one clears the mark.
void applyContact(ActivityContext& ctx, UserRecord& user, const std::string& type,
                  const std::string& value, const std::optional<std::string>& token,
                  const std::string& field) {
  std::optional<std::string>& slot = type == "OTP_TYPE_EMAIL" ? user.email : user.phoneNumber;
  bool& verified = type == "OTP_TYPE_EMAIL" ? user.emailVerified : user.phoneNumberVerified;
  if (value.empty()) {
    slot.reset();
    verified = false;
    return;
  }
  slot = type == "OTP_TYPE_EMAIL" ? contacts::validateEmail(value, "parameters." + field)
                                  : contacts::validatePhoneNumber(value, "parameters." + field);
  verified = false;
  if (!token) return;
  auto org = directory::requireOrganization(ctx.db(), ctx.organizationId());
  auto v = contacts::spendVerificationToken(ctx, *token, org.id, org.parentId,
                                            "parameters.verificationToken");
  if (!contacts::sameContact(v, type, *slot))
    throw invalidArgument("invalid field parameters.verificationToken: it verifies " + v.contact +
                          ", not " + *slot);
  verified = true;
}
}  // namespace

const Shape<CreateUsersParameters> kCreateUsers = {
    field("users", &CreateUsersParameters::users, userShape())};
const Shape<DeleteUsersParameters> kDeleteUsers = {
    field("userIds", &DeleteUsersParameters::userIds)};
const Shape<UpdateUserParameters> kUpdateUser = {
    field("userId", &UpdateUserParameters::userId),
    field("userName", &UpdateUserParameters::userName, {.displayName = true}),
    field("userEmail", &UpdateUserParameters::userEmail),
    field("userPhoneNumber", &UpdateUserParameters::userPhoneNumber),
    field("userTagIds", &UpdateUserParameters::userTagIds)};
const Shape<UpdateUserNameParameters> kUpdateUserName = {
    field("userId", &UpdateUserNameParameters::userId),
    field("userName", &UpdateUserNameParameters::userName, {.displayName = true})};
const Shape<UpdateContactParameters> kUpdateUserEmail = {
    field("userId", &UpdateContactParameters::userId),
    field("userEmail", &UpdateContactParameters::userEmail, {.required = true}),
    field("verificationToken", &UpdateContactParameters::verificationToken)};
const Shape<UpdateContactParameters> kUpdateUserPhoneNumber = {
    field("userId", &UpdateContactParameters::userId),
    field("userPhoneNumber", &UpdateContactParameters::userPhoneNumber, {.required = true}),
    field("verificationToken", &UpdateContactParameters::verificationToken)};

json::Object createUsers(ActivityContext& ctx, const CreateUsersParameters& params) {
  const auto& list = params.users;
  if (list.empty()) throw invalidArgument("invalid field parameters.users: must not be empty");
  std::vector<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i)
    ids.push_back(createFromParams(ctx, ctx.organizationId(), list[i],
                                   "parameters.users[" + std::to_string(i) + "]")
                      .id);
  json::Object r = json::object();
  r->set("userIds", json::stringArray(ids));
  return r;
}

json::Object deleteUsers(ActivityContext& ctx, const DeleteUsersParameters& params) {
  const auto& ids = params.userIds;
  if (ids.empty()) throw invalidArgument("invalid field parameters.userIds: must not be empty");
  auto quorum = directory::rootQuorumUserIds(ctx.db(), ctx.organizationId());
  for (const auto& id : ids) {
    directory::requireUser(ctx.db(), ctx.organizationId(), id);
    if (std::find(quorum.begin(), quorum.end(), id) != quorum.end())
      throw failedPrecondition("cannot delete user " + id +
                               ": it is in the root quorum of "
                               "organization " +
                               ctx.organizationId() +
                               " (quorum users missing); change the quorum with "
                               "update_root_quorum first");
    directory::deleteUser(ctx.db(), ctx.organizationId(), id);
  }
  json::Object r = json::object();
  r->set("userIds", json::stringArray(ids));
  return r;
}

json::Object updateUser(ActivityContext& ctx, const UpdateUserParameters& params) {
  const std::string& userId = params.userId;
  auto user = directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  if (const auto& name = params.userName) {
    if (name->empty())
      throw invalidArgument("invalid field parameters.userName: must not be empty");
    user.name = *name;
  }
  if (params.userEmail)
    applyContact(ctx, user, "OTP_TYPE_EMAIL", *params.userEmail, std::nullopt, "userEmail");
  if (params.userPhoneNumber)
    applyContact(ctx, user, "OTP_TYPE_SMS", *params.userPhoneNumber, std::nullopt,
                 "userPhoneNumber");
  if (params.userTagIds)
    setTags(ctx.db(), ctx.organizationId(), userId, *params.userTagIds, "parameters.userTagIds");
  user.updatedAtMs = ctx.nowMs();
  directory::updateUser(ctx.db(), user);
  return userIdResult(userId);
}

json::Object updateUserName(ActivityContext& ctx, const UpdateUserNameParameters& params) {
  const std::string& userId = params.userId;
  const std::string& name = params.userName;
  if (name.empty()) throw invalidArgument("invalid field parameters.userName: must not be empty");
  auto user = directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  user.name = name;
  user.updatedAtMs = ctx.nowMs();
  directory::updateUser(ctx.db(), user);
  return userIdResult(userId);
}

namespace {
// update_user_email and update_user_phone_number: the same steps for either contact.
json::Object updateContact(ActivityContext& ctx, const UpdateContactParameters& params,
                           const std::string& type, const std::string& field,
                           const std::string& value) {
  const std::string& userId = params.userId;
  const auto& token = params.verificationToken;
  auto user = directory::requireUser(ctx.db(), ctx.organizationId(), userId);
  applyContact(ctx, user, type, value, token, field);
  user.updatedAtMs = ctx.nowMs();
  directory::updateUser(ctx.db(), user);
  return userIdResult(userId);
}
}  // namespace

// Each shape requires its own contact.
json::Object updateUserEmail(ActivityContext& ctx, const UpdateContactParameters& params) {
  return updateContact(ctx, params, "OTP_TYPE_EMAIL", "userEmail", params.userEmail.value_or(""));
}

json::Object updateUserPhoneNumber(ActivityContext& ctx, const UpdateContactParameters& params) {
  return updateContact(ctx, params, "OTP_TYPE_SMS", "userPhoneNumber",
                       params.userPhoneNumber.value_or(""));
}

json::Object listUsers(RequestContext& ctx, const json::Object&) {
  json::Array list = json::array();
  for (const auto& u : directory::listUsers(ctx.db(), ctx.organizationId()))
    list->add(userJson(ctx.db(), u));
  json::Object r = json::object();
  r->set("users", list);
  return r;
}

}  // namespace signet::users
