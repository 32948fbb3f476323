// Sub-organizations: create_sub_organization V4..V8, delete_sub_organization, list_suborgs,
// list_verified_suborgs, and the core's list_suborgs filters.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"
#include "signet/wallet_params.hpp"
#include "tenancy/user_params.hpp"

namespace signet::sub_organizations {
struct CreateSubOrganizationParameters {
  std::string subOrganizationName;
  std::vector<users::UserParameters> rootUsers;
  int64_t rootQuorumThreshold = 0;
  std::optional<WalletParameters>
      wallet;  // created by the wallet provider (Services::createWallet)
  std::optional<bool> disableEmailRecovery, disableEmailAuth;
  // V7 on:
  std::optional<bool> disableSmsAuth, disableOtpEmailAuth;
  std::optional<std::string> verificationToken;
  std::optional<json::Object> clientSignature;
};
struct DeleteSubOrganizationParameters {
  std::optional<bool> deleteWithoutExport;
};
// V4 to V6 share the first; V7 and V8 add the SMS and OTP flags and the sign-up token.
extern const Shape<CreateSubOrganizationParameters> kCreateSubOrganizationV4,
    kCreateSubOrganizationV7;
extern const Shape<DeleteSubOrganizationParameters> kDeleteSubOrganization;

json::Object createSubOrganization(ActivityContext& ctx,
                                   const CreateSubOrganizationParameters& params);
json::Object deleteSubOrganization(ActivityContext& ctx,
                                   const DeleteSubOrganizationParameters& params);
json::Object listSubOrganizations(RequestContext& ctx, const json::Object& body);
json::Object listVerifiedSubOrganizations(RequestContext& ctx, const json::Object& body);
// CREDENTIAL_ID, NAME, USERNAME, EMAIL, PHONE_NUMBER, PUBLIC_KEY (OIDC_TOKEN is matched in
// listSubOrganizations itself: it needs the token verified).
std::vector<SubOrganizationFilter> coreFilters();
// The statement listing the sub-organizations of a parent (its first parameter) that match a
// filter's condition (its parameters after), before its page is appended; the filter's index,
// not the parent's, finds them.
std::string filteredListSql(const std::string& condition);
// list_verified_suborgs's conditions: EMAIL or PHONE_NUMBER, verified; InvalidArgument otherwise.
std::pair<std::string, SqlParams> verifiedCondition(const std::string& filterType,
                                                    const std::string& value);
}  // namespace signet::sub_organizations
