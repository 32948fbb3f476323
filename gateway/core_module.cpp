// The core's registrations, through the same Registry a plugin gets. One row per activity
// type or query; the handlers live in files named after what they do.
#include "activity/activity_queries.hpp"
#include "activity/pipeline.hpp"
#include "gateway.hpp"
#include "log/log_queries.hpp"
#include "mfa/mfa_policies.hpp"
#include "policy/policies.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/authenticators.hpp"
#include "tenancy/identity.hpp"
#include "tenancy/invitations.hpp"
#include "tenancy/ip_allowlists.hpp"
#include "tenancy/oauth_providers.hpp"
#include "tenancy/organization_config.hpp"
#include "tenancy/sub_organizations.hpp"
#include "tenancy/user_tags.hpp"
#include "tenancy/users.hpp"

namespace signet {

namespace oc = organization_config;
namespace so = sub_organizations;

void registerCoreModule(Registry& r) {
  r.activity({.type = "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
              .path = "create_api_keys",
              .intentKey = "createApiKeysIntentV2",
              .resultKey = "createApiKeysResult",
              .resource = "API_KEY",
              .action = "CREATE",
              .handler = api_keys::kCreateApiKeys.handler(api_keys::createApiKeys),
              .parameters = api_keys::kCreateApiKeys.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_API_KEYS",
              .path = "delete_api_keys",
              .intentKey = "deleteApiKeysIntent",
              .resultKey = "deleteApiKeysResult",
              .resource = "API_KEY",
              .action = "DELETE",
              .handler = api_keys::kDeleteApiKeys.handler(api_keys::deleteApiKeys),
              .parameters = api_keys::kDeleteApiKeys.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_USERS_V3",
              .path = "create_users",
              .intentKey = "createUsersIntentV3",
              .resultKey = "createUsersResult",
              .resource = "USER",
              .action = "CREATE",
              .handler = users::kCreateUsers.handler(users::createUsers),
              .parameters = users::kCreateUsers.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_USERS_V4",
              .path = "create_users",
              .intentKey = "createUsersIntentV4",
              .resultKey = "createUsersResult",
              .resource = "USER",
              .action = "CREATE",
              .handler = users::kCreateUsers.handler(users::createUsers),
              .parameters = users::kCreateUsers.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_USERS",
              .path = "delete_users",
              .intentKey = "deleteUsersIntent",
              .resultKey = "deleteUsersResult",
              .resource = "USER",
              .action = "DELETE",
              .handler = users::kDeleteUsers.handler(users::deleteUsers),
              .parameters = users::kDeleteUsers.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_USER",
              .path = "update_user",
              .intentKey = "updateUserIntent",
              .resultKey = "updateUserResult",
              .resource = "USER",
              .action = "UPDATE",
              .handler = users::kUpdateUser.handler(users::updateUser),
              .parameters = users::kUpdateUser.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_USER_NAME",
              .path = "update_user_name",
              .intentKey = "updateUserNameIntent",
              .resultKey = "updateUserNameResult",
              .resource = "USER",
              .action = "UPDATE",
              .handler = users::kUpdateUserName.handler(users::updateUserName),
              .parameters = users::kUpdateUserName.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
              .path = "update_user_email",
              .intentKey = "updateUserEmailIntent",
              .resultKey = "updateUserEmailResult",
              .resource = "USER",
              .action = "UPDATE",
              .handler = users::kUpdateUserEmail.handler(users::updateUserEmail),
              .parameters = users::kUpdateUserEmail.specs(),
              .secrets = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
              .path = "update_user_phone_number",
              .intentKey = "updateUserPhoneNumberIntent",
              .resultKey = "updateUserPhoneNumberResult",
              .resource = "USER",
              .action = "UPDATE",
              .handler = users::kUpdateUserPhoneNumber.handler(users::updateUserPhoneNumber),
              .parameters = users::kUpdateUserPhoneNumber.specs(),
              .secrets = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_USER_TAG",
              .path = "create_user_tag",
              .intentKey = "createUserTagIntent",
              .resultKey = "createUserTagResult",
              .resource = "USER_TAG",
              .action = "CREATE",
              .handler = user_tags::kCreateUserTag.handler(user_tags::createUserTag),
              .parameters = user_tags::kCreateUserTag.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_USER_TAG",
              .path = "update_user_tag",
              .intentKey = "updateUserTagIntent",
              .resultKey = "updateUserTagResult",
              .resource = "USER_TAG",
              .action = "UPDATE",
              .handler = user_tags::kUpdateUserTag.handler(user_tags::updateUserTag),
              .parameters = user_tags::kUpdateUserTag.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_USER_TAGS",
              .path = "delete_user_tags",
              .intentKey = "deleteUserTagsIntent",
              .resultKey = "deleteUserTagsResult",
              .resource = "USER_TAG",
              .action = "DELETE",
              .handler = user_tags::kDeleteUserTags.handler(user_tags::deleteUserTags),
              .parameters = user_tags::kDeleteUserTags.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
              .path = "create_authenticators",
              .intentKey = "createAuthenticatorsIntentV2",
              .resultKey = "createAuthenticatorsResult",
              .resource = "AUTHENTICATOR",
              .action = "CREATE",
              .handler = authenticators::kCreateAuthenticators.handler(
                  authenticators::createAuthenticators),
              .parameters = authenticators::kCreateAuthenticators.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
              .path = "delete_authenticators",
              .intentKey = "deleteAuthenticatorsIntent",
              .resultKey = "deleteAuthenticatorsResult",
              .resource = "AUTHENTICATOR",
              .action = "DELETE",
              .handler = authenticators::kDeleteAuthenticators.handler(
                  authenticators::deleteAuthenticators),
              .parameters = authenticators::kDeleteAuthenticators.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
              .path = "update_root_quorum",
              .intentKey = "updateRootQuorumIntent",
              .resultKey = "updateRootQuorumResult",
              .resource = "ROOT_QUORUM",
              .action = "UPDATE",
              .rootQuorumOnly = true,
              .handler = oc::kUpdateRootQuorum.handler(oc::updateRootQuorum),
              .parameters = oc::kUpdateRootQuorum.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
              .path = "set_organization_feature",
              .intentKey = "setOrganizationFeatureIntent",
              .resultKey = "setOrganizationFeatureResult",
              .resource = "ORGANIZATION",
              .action = "UPDATE",
              .rootQuorumOnly = true,
              .handler = oc::kSetFeature.handler(oc::setFeature),
              .parameters = oc::kSetFeature.specs()});
  r.activity({.type = "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",
              .path = "remove_organization_feature",
              .intentKey = "removeOrganizationFeatureIntent",
              .resultKey = "removeOrganizationFeatureResult",
              .resource = "ORGANIZATION",
              .action = "UPDATE",
              .rootQuorumOnly = true,
              .handler = oc::kRemoveFeature.handler(oc::removeFeature),
              .parameters = oc::kRemoveFeature.specs()});
  r.activity({.type = "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
              .path = "set_ip_allowlist",
              .intentKey = "setIpAllowlistIntent",
              .resultKey = "setIpAllowlistResult",
              .resource = "ORGANIZATION",
              .action = "UPDATE",
              .rootQuorumOnly = true,
              .handler = ip_allowlists::kSetIpAllowlist.handler(ip_allowlists::setIpAllowlist),
              .parameters = ip_allowlists::kSetIpAllowlist.specs()});
  r.activity(
      {.type = "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
       .path = "remove_ip_allowlist",
       .intentKey = "removeIpAllowlistIntent",
       .resultKey = "removeIpAllowlistResult",
       .resource = "ORGANIZATION",
       .action = "UPDATE",
       .rootQuorumOnly = true,
       .handler = ip_allowlists::kRemoveIpAllowlist.handler(ip_allowlists::removeIpAllowlist),
       .parameters = ip_allowlists::kRemoveIpAllowlist.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
              .path = "update_organization_name",
              .intentKey = "updateOrganizationNameIntent",
              .resultKey = "updateOrganizationNameResult",
              .resource = "ORGANIZATION",
              .action = "UPDATE",
              .rootQuorumOnly = true,
              .handler = oc::kUpdateOrganizationName.handler(oc::updateOrganizationName),
              .parameters = oc::kUpdateOrganizationName.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V4",
              .path = "create_sub_organization",
              .intentKey = "createSubOrganizationIntentV4",
              .resultKey = "createSubOrganizationResultV4",
              .resource = "ORGANIZATION",
              .action = "CREATE",
              .handler = so::kCreateSubOrganizationV4.handler(so::createSubOrganization),
              .parameters = so::kCreateSubOrganizationV4.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V5",
              .path = "create_sub_organization",
              .intentKey = "createSubOrganizationIntentV5",
              .resultKey = "createSubOrganizationResultV5",
              .resource = "ORGANIZATION",
              .action = "CREATE",
              .handler = so::kCreateSubOrganizationV4.handler(so::createSubOrganization),
              .parameters = so::kCreateSubOrganizationV4.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V6",
              .path = "create_sub_organization",
              .intentKey = "createSubOrganizationIntentV6",
              .resultKey = "createSubOrganizationResultV6",
              .resource = "ORGANIZATION",
              .action = "CREATE",
              .handler = so::kCreateSubOrganizationV4.handler(so::createSubOrganization),
              .parameters = so::kCreateSubOrganizationV4.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
              .path = "create_sub_organization",
              .intentKey = "createSubOrganizationIntentV7",
              .resultKey = "createSubOrganizationResultV7",
              .resource = "ORGANIZATION",
              .action = "CREATE",
              .handler = so::kCreateSubOrganizationV7.handler(so::createSubOrganization),
              .parameters = so::kCreateSubOrganizationV7.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({"verificationToken"})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
              .path = "create_sub_organization",
              .intentKey = "createSubOrganizationIntentV8",
              .resultKey = "createSubOrganizationResultV8",
              .resource = "ORGANIZATION",
              .action = "CREATE",
              .handler = so::kCreateSubOrganizationV7.handler(so::createSubOrganization),
              .parameters = so::kCreateSubOrganizationV7.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({"verificationToken"})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_POLICY_V3",
              .path = "create_policy",
              .intentKey = "createPolicyIntentV3",
              .resultKey = "createPolicyResult",
              .resource = "POLICY",
              .action = "CREATE",
              .handler = policy::createPolicyShape().handler(policy::createPolicy),
              .parameters = policy::createPolicyShape().specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_POLICIES",
              .path = "create_policies",
              .intentKey = "createPoliciesIntent",
              .resultKey = "createPoliciesResult",
              .resource = "POLICY",
              .action = "CREATE",
              .handler = policy::kCreatePolicies.handler(policy::createPolicies),
              .parameters = policy::kCreatePolicies.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_POLICY_V2",
              .path = "update_policy",
              .intentKey = "updatePolicyIntentV2",
              .resultKey = "updatePolicyResultV2",
              .resource = "POLICY",
              .action = "UPDATE",
              .handler = policy::kUpdatePolicy.handler(policy::updatePolicyHandler),
              .parameters = policy::kUpdatePolicy.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_POLICY",
              .path = "delete_policy",
              .intentKey = "deletePolicyIntent",
              .resultKey = "deletePolicyResult",
              .resource = "POLICY",
              .action = "DELETE",
              .handler = policy::kDeletePolicy.handler(policy::deletePolicyHandler),
              .parameters = policy::kDeletePolicy.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_POLICIES",
              .path = "delete_policies",
              .intentKey = "deletePoliciesIntent",
              .resultKey = "deletePoliciesResult",
              .resource = "POLICY",
              .action = "DELETE",
              .handler = policy::kDeletePolicies.handler(policy::deletePolicies),
              .parameters = policy::kDeletePolicies.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_MFA_POLICY",
              .path = "create_mfa_policy",
              .intentKey = "createMfaPolicyIntent",
              .resultKey = "createMfaPolicyResult",
              .resource = "MFA_POLICY",
              .action = "CREATE",
              .handler = mfa::kCreateMfaPolicy.handler(mfa::createMfaPolicy),
              .parameters = mfa::kCreateMfaPolicy.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
              .path = "update_mfa_policy",
              .intentKey = "updateMfaPolicyIntent",
              .resultKey = "updateMfaPolicyResult",
              .resource = "MFA_POLICY",
              .action = "UPDATE",
              .handler = mfa::kUpdateMfaPolicy.handler(mfa::updateMfaPolicy),
              .parameters = mfa::kUpdateMfaPolicy.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_MFA_POLICY",
              .path = "delete_mfa_policy",
              .intentKey = "deleteMfaPolicyIntent",
              .resultKey = "deleteMfaPolicyResult",
              .resource = "MFA_POLICY",
              .action = "DELETE",
              .handler = mfa::kDeleteMfaPolicy.handler(mfa::deleteMfaPolicy),
              .parameters = mfa::kDeleteMfaPolicy.specs()});
  // Votes: the pipeline runs them (they act on another activity and return it).
  r.activity({.type = "ACTIVITY_TYPE_APPROVE_ACTIVITY",
              .path = "approve_activity",
              .intentKey = "approveActivityIntent",
              .resultKey = "approveActivityResult",
              .resource = "ACTIVITY",
              .action = "APPROVE",
              .handler = votesAreRunByThePipeline,
              .parameters = kVote.specs()});
  r.activity({.type = "ACTIVITY_TYPE_REJECT_ACTIVITY",
              .path = "reject_activity",
              .intentKey = "rejectActivityIntent",
              .resultKey = "rejectActivityResult",
              .resource = "ACTIVITY",
              .action = "REJECT",
              .handler = votesAreRunByThePipeline,
              .parameters = kVote.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
              .path = "create_oauth_providers",
              .intentKey = "createOauthProvidersIntent",
              .resultKey = "createOauthProvidersResult",
              .resource = "OAUTH_PROVIDER",
              .action = "CREATE",
              .handler = oauth_providers::kCreateOauthProviders.handler(
                  oauth_providers::createOauthProviders),
              .parameters = oauth_providers::kCreateOauthProviders.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
              .path = "create_oauth_providers",
              .intentKey = "createOauthProvidersIntentV2",
              .resultKey = "createOauthProvidersResultV2",
              .resource = "OAUTH_PROVIDER",
              .action = "CREATE",
              .handler = oauth_providers::kCreateOauthProviders.handler(
                  oauth_providers::createOauthProviders),
              .parameters = oauth_providers::kCreateOauthProviders.specs(),
              .prepare = oauth_providers::prepareTokens,
              .secrets = oauth_providers::secretsWith({})});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
              .path = "delete_oauth_providers",
              .intentKey = "deleteOauthProvidersIntent",
              .resultKey = "deleteOauthProvidersResult",
              .resource = "OAUTH_PROVIDER",
              .action = "DELETE",
              .handler = oauth_providers::kDeleteOauthProviders.handler(
                  oauth_providers::deleteOauthProviders),
              .parameters = oauth_providers::kDeleteOauthProviders.specs()});
  r.activity({.type = "ACTIVITY_TYPE_RECOVER_USER",
              .path = "recover_user",
              .intentKey = "recoverUserIntent",
              .resultKey = "recoverUserResult",
              .resource = "AUTHENTICATOR",
              .action = "CREATE",
              .handler = authenticators::kRecoverUser.handler(authenticators::recoverUser),
              .parameters = authenticators::kRecoverUser.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_INVITATIONS",
              .path = "create_invitations",
              .intentKey = "createInvitationsIntent",
              .resultKey = "createInvitationsResult",
              .resource = "INVITATION",
              .action = "CREATE",
              .handler = invitations::kCreateInvitations.handler(invitations::createInvitations),
              .parameters = invitations::kCreateInvitations.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_INVITATION",
              .path = "delete_invitation",
              .intentKey = "deleteInvitationIntent",
              .resultKey = "deleteInvitationResult",
              .resource = "INVITATION",
              .action = "DELETE",
              .handler = invitations::kDeleteInvitation.handler(invitations::deleteInvitation),
              .parameters = invitations::kDeleteInvitation.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
              .path = "delete_sub_organization",
              .intentKey = "deleteSubOrganizationIntent",
              .resultKey = "deleteSubOrganizationResult",
              .resource = "ORGANIZATION",
              .action = "DELETE",
              .handler = so::kDeleteSubOrganization.handler(so::deleteSubOrganization),
              .parameters = so::kDeleteSubOrganization.specs()});

  // clang-format off
  r.query({"whoami",                   identity::whoami});
  r.query({"get_user",                 identity::getUser});
  r.query({"list_users",               users::listUsers});
  r.query({"list_user_tags",           user_tags::listUserTags});
  r.query({"get_api_keys",             api_keys::getApiKeys});
  r.query({"get_api_key",              api_keys::getApiKey});
  r.query({"get_authenticator",        authenticators::getAuthenticator});
  r.query({"get_authenticators",       authenticators::getAuthenticators});
  r.query({"get_oauth_providers",      oauth_providers::getOauthProviders});
  r.query({"get_organization_configs", oc::getOrganizationConfigs});
  r.query({"get_ip_allowlist",         ip_allowlists::getIpAllowlist});
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
  r.query({"list_app_proofs",          activity_queries::listAppProofs});
  r.query({"signet_get_log_checkpoint",        log_queries::getCheckpoint});
  r.query({"signet_get_log_inclusion_proof",   log_queries::getInclusionProof});
  r.query({"signet_get_log_consistency_proof", log_queries::getConsistencyProof});
  // clang-format on
  for (auto& filter : so::coreFilters()) r.subOrganizationFilter(std::move(filter));
}

}  // namespace signet
