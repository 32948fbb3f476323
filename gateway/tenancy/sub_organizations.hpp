// Sub-organizations: create_sub_organization V4..V8, delete_sub_organization, list_suborgs,
// list_verified_suborgs, and the core's list_suborgs filters.
#pragma once

#include "signet/plugin.hpp"

namespace signet::sub_organizations {
// V4..V8 share it; it reads ctx.activityVersion() where they differ.
json::Object createSubOrganization(ActivityContext& ctx, const json::Object& params);
json::Object deleteSubOrganization(ActivityContext& ctx, const json::Object& params);
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
