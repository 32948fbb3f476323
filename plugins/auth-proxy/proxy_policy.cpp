#include "proxy_policy.hpp"

namespace auth_proxy {

using namespace signet;

const std::vector<std::string>& forwardedActivityTypes() {
  static const std::vector<std::string> types = {
      "ACTIVITY_TYPE_INIT_OTP",
      "ACTIVITY_TYPE_INIT_OTP_V2",
      "ACTIVITY_TYPE_INIT_OTP_V3",
      "ACTIVITY_TYPE_VERIFY_OTP",
      "ACTIVITY_TYPE_VERIFY_OTP_V2",
      "ACTIVITY_TYPE_OTP_LOGIN",
      "ACTIVITY_TYPE_OTP_LOGIN_V2",
      "ACTIVITY_TYPE_OAUTH_LOGIN",
      "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
      "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
      "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
  };
  return types;
}

json::Object proxyPolicyParameters(const std::string& userId, const std::string& configId) {
  std::string list;
  for (const auto& t : forwardedActivityTypes()) list += (list.empty() ? "'" : ", '") + t + "'";
  json::Object p = json::object();
  p->set("policyName", "Auth proxy " + configId);
  p->set("effect", "EFFECT_ALLOW");
  p->set("consensus", "approvers.any(user, user.id == '" + userId + "')");
  p->set("condition", "activity.type in [" + list + "]");
  p->set("notes",
         "Written by enable_auth_proxy: the auth proxy's user may run the activities it forwards "
         "(OTP, logins, sign-up) and nothing else.");
  return p;
}

}  // namespace auth_proxy
