// The core's registrations, through the same Registry a plugin gets. One row per activity
// type or query; the handlers live in files named after what they do.
#include "activity/activity_queries.hpp"
#include "activity/pipeline.hpp"
#include "gateway.hpp"
#include "mfa/mfa_policies.hpp"
#include "policy/policies.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/authenticators.hpp"
#include "tenancy/identity.hpp"
#include "tenancy/organization_config.hpp"
#include "tenancy/sub_organizations.hpp"
#include "tenancy/user_tags.hpp"
#include "tenancy/users.hpp"

namespace signet {

namespace oc = organization_config;
namespace so = sub_organizations;

void registerCoreModule(Registry& r) {
  // clang-format off
  //          type                                          path                        intent key                          result key                          resource        action    root quorum only  handler
  r.activity({"ACTIVITY_TYPE_CREATE_API_KEYS_V2",           "create_api_keys",          "createApiKeysIntentV2",            "createApiKeysResult",              "API_KEY",      "CREATE", false, api_keys::createApiKeys});
  r.activity({"ACTIVITY_TYPE_DELETE_API_KEYS",              "delete_api_keys",          "deleteApiKeysIntent",              "deleteApiKeysResult",              "API_KEY",      "DELETE", false, api_keys::deleteApiKeys});
  r.activity({"ACTIVITY_TYPE_CREATE_USERS_V3",              "create_users",             "createUsersIntentV3",              "createUsersResult",                "USER",         "CREATE", false, users::createUsers});
  r.activity({"ACTIVITY_TYPE_CREATE_USERS_V4",              "create_users",             "createUsersIntentV4",              "createUsersResult",                "USER",         "CREATE", false, users::createUsers});
  r.activity({"ACTIVITY_TYPE_DELETE_USERS",                 "delete_users",             "deleteUsersIntent",                "deleteUsersResult",                "USER",         "DELETE", false, users::deleteUsers});
  r.activity({"ACTIVITY_TYPE_UPDATE_USER",                  "update_user",              "updateUserIntent",                 "updateUserResult",                 "USER",         "UPDATE", false, users::updateUser});
  r.activity({"ACTIVITY_TYPE_UPDATE_USER_NAME",             "update_user_name",         "updateUserNameIntent",             "updateUserNameResult",             "USER",         "UPDATE", false, users::updateUserName});
  r.activity({"ACTIVITY_TYPE_UPDATE_USER_EMAIL",            "update_user_email",        "updateUserEmailIntent",            "updateUserEmailResult",            "USER",         "UPDATE", false, users::updateUserEmail});
  r.activity({"ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",     "update_user_phone_number", "updateUserPhoneNumberIntent",      "updateUserPhoneNumberResult",      "USER",         "UPDATE", false, users::updateUserPhoneNumber});
  r.activity({"ACTIVITY_TYPE_CREATE_USER_TAG",              "create_user_tag",          "createUserTagIntent",              "createUserTagResult",              "USER_TAG",     "CREATE", false, user_tags::createUserTag});
  r.activity({"ACTIVITY_TYPE_UPDATE_USER_TAG",              "update_user_tag",          "updateUserTagIntent",              "updateUserTagResult",              "USER_TAG",     "UPDATE", false, user_tags::updateUserTag});
  r.activity({"ACTIVITY_TYPE_DELETE_USER_TAGS",             "delete_user_tags",         "deleteUserTagsIntent",             "deleteUserTagsResult",             "USER_TAG",     "DELETE", false, user_tags::deleteUserTags});
  r.activity({"ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",     "create_authenticators",    "createAuthenticatorsIntentV2",     "createAuthenticatorsResult",       "AUTHENTICATOR","CREATE", false, authenticators::createAuthenticators});
  r.activity({"ACTIVITY_TYPE_DELETE_AUTHENTICATORS",        "delete_authenticators",    "deleteAuthenticatorsIntent",       "deleteAuthenticatorsResult",       "AUTHENTICATOR","DELETE", false, authenticators::deleteAuthenticators});
  r.activity({"ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",           "update_root_quorum",       "updateRootQuorumIntent",           "updateRootQuorumResult",           "ROOT_QUORUM",  "UPDATE", true,  oc::updateRootQuorum});
  r.activity({"ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",     "set_organization_feature", "setOrganizationFeatureIntent",     "setOrganizationFeatureResult",     "ORGANIZATION", "UPDATE", true,  oc::setFeature});
  r.activity({"ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",  "remove_organization_feature","removeOrganizationFeatureIntent", "removeOrganizationFeatureResult",  "ORGANIZATION", "UPDATE", true,  oc::removeFeature});
  r.activity({"ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",     "update_organization_name", "updateOrganizationNameIntent",     "updateOrganizationNameResult",     "ORGANIZATION", "UPDATE", true,  oc::updateOrganizationName});
  r.activity({"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4",   "create_sub_organization",  "createSubOrganizationIntentV4",    "createSubOrganizationResultV4",    "ORGANIZATION", "CREATE", false, so::createHandler(4)});
  r.activity({"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5",   "create_sub_organization",  "createSubOrganizationIntentV5",    "createSubOrganizationResultV5",    "ORGANIZATION", "CREATE", false, so::createHandler(5)});
  r.activity({"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6",   "create_sub_organization",  "createSubOrganizationIntentV6",    "createSubOrganizationResultV6",    "ORGANIZATION", "CREATE", false, so::createHandler(6)});
  r.activity({"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",   "create_sub_organization",  "createSubOrganizationIntentV7",    "createSubOrganizationResultV7",    "ORGANIZATION", "CREATE", false, so::createHandler(7)});
  r.activity({"ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",   "create_sub_organization",  "createSubOrganizationIntentV8",    "createSubOrganizationResultV8",    "ORGANIZATION", "CREATE", false, so::createHandler(8)});
  r.activity({"ACTIVITY_TYPE_CREATE_POLICY_V3",              "create_policy",            "createPolicyIntentV3",             "createPolicyResult",               "POLICY",       "CREATE", false, policy::createPolicy});
  r.activity({"ACTIVITY_TYPE_CREATE_POLICIES",              "create_policies",          "createPoliciesIntent",             "createPoliciesResult",             "POLICY",       "CREATE", false, policy::createPolicies});
  r.activity({"ACTIVITY_TYPE_UPDATE_POLICY_V2",             "update_policy",            "updatePolicyIntentV2",             "updatePolicyResultV2",             "POLICY",       "UPDATE", false, policy::updatePolicyHandler});
  r.activity({"ACTIVITY_TYPE_DELETE_POLICY",                "delete_policy",            "deletePolicyIntent",               "deletePolicyResult",               "POLICY",       "DELETE", false, policy::deletePolicyHandler});
  r.activity({"ACTIVITY_TYPE_DELETE_POLICIES",              "delete_policies",          "deletePoliciesIntent",             "deletePoliciesResult",             "POLICY",       "DELETE", false, policy::deletePolicies});
  r.activity({"ACTIVITY_TYPE_CREATE_MFA_POLICY",            "create_mfa_policy",        "createMfaPolicyIntent",            "createMfaPolicyResult",            "MFA_POLICY",   "CREATE", false, mfa::createMfaPolicy});
  r.activity({"ACTIVITY_TYPE_UPDATE_MFA_POLICY",            "update_mfa_policy",        "updateMfaPolicyIntent",            "updateMfaPolicyResult",            "MFA_POLICY",   "UPDATE", false, mfa::updateMfaPolicy});
  r.activity({"ACTIVITY_TYPE_DELETE_MFA_POLICY",            "delete_mfa_policy",        "deleteMfaPolicyIntent",            "deleteMfaPolicyResult",            "MFA_POLICY",   "DELETE", false, mfa::deleteMfaPolicy});
  // Votes: the pipeline runs them (they act on another activity and return it).
  r.activity({"ACTIVITY_TYPE_APPROVE_ACTIVITY",             "approve_activity",         "approveActivityIntent",            "approveActivityResult",            "ACTIVITY",     "APPROVE", false, votesAreRunByThePipeline});
  r.activity({"ACTIVITY_TYPE_REJECT_ACTIVITY",              "reject_activity",          "rejectActivityIntent",             "rejectActivityResult",             "ACTIVITY",     "REJECT", false, votesAreRunByThePipeline});
  r.activity({"ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",      "delete_sub_organization",  "deleteSubOrganizationIntent",      "deleteSubOrganizationResult",      "ORGANIZATION", "DELETE", false, so::deleteSubOrganization});

  r.query({"whoami",                   identity::whoami});
  r.query({"get_user",                 identity::getUser});
  r.query({"list_users",               users::listUsers});
  r.query({"list_user_tags",           user_tags::listUserTags});
  r.query({"get_api_keys",             api_keys::getApiKeys});
  r.query({"get_api_key",              api_keys::getApiKey});
  r.query({"get_authenticator",        authenticators::getAuthenticator});
  r.query({"get_authenticators",       authenticators::getAuthenticators});
  r.query({"get_organization_configs", oc::getOrganizationConfigs});
  r.query({"list_suborgs",             so::listSubOrganizations});
  r.query({"list_verified_suborgs",    so::listVerifiedSubOrganizations});
  r.query({"get_policy",               policy::getPolicy});
  r.query({"list_policies",            policy::listPolicies});
  r.query({"get_policy_evaluations",   policy::getPolicyEvaluations});
  r.query({"get_mfa_policy",           mfa::getMfaPolicy});
  r.query({"get_mfa_policies",         mfa::getMfaPolicies});
  r.query({"get_mfa_status",           mfa::getMfaStatus});
  r.query({"get_activity",             activity_queries::getActivity});
  r.query({"list_activities",          activity_queries::listActivities});
  // clang-format on
  for (auto& filter : so::coreFilters()) r.subOrganizationFilter(std::move(filter));
}

}  // namespace signet
