// The core's registrations, through the same Registry a plugin gets. One row per activity
// type or query; the handlers live in files named after what they do.
#include "activity/activity_queries.hpp"
#include "gateway.hpp"
#include "tenancy/api_keys.hpp"
#include "tenancy/identity.hpp"

namespace signet {

void registerCoreModule(Registry& r) {
  // clang-format off
  //          type                                path               intent key               result key            resource  action
  r.activity({"ACTIVITY_TYPE_CREATE_API_KEYS_V2", "create_api_keys", "createApiKeysIntentV2", "createApiKeysResult", "API_KEY", "CREATE", false, api_keys::createApiKeys});
  r.activity({"ACTIVITY_TYPE_DELETE_API_KEYS",    "delete_api_keys", "deleteApiKeysIntent",   "deleteApiKeysResult", "API_KEY", "DELETE", false, api_keys::deleteApiKeys});

  r.query({"whoami",          identity::whoami});
  r.query({"get_user",        identity::getUser});
  r.query({"get_api_keys",    api_keys::getApiKeys});
  r.query({"get_api_key",     api_keys::getApiKey});
  r.query({"get_activity",    activity_queries::getActivity});
  r.query({"list_activities", activity_queries::listActivities});
  // clang-format on
}

}  // namespace signet
