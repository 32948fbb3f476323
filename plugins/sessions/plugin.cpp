// The sessions plugin's registration: one row per activity type or query. Logins, OTP and
// email auth may be submitted by the parent organization for a sub-organization (the
// auth-proxy pattern); the parent's own quorum and policies then govern them.
#include <Poco/Net/SSLManager.h>

#include <memory>

#include "logins.hpp"
#include "otp.hpp"
#include "profiles.hpp"
#include "schema.hpp"

namespace {

using namespace signet;
using namespace sessions;

ActivityHandler versioned(json::Object (*h)(ActivityContext&, const json::Object&, int), int v) {
  return [h, v](ActivityContext& ctx, const json::Object& p) { return h(ctx, p, v); };
}
// Each gateway that loads the plugin gets its own settings; handlers hold them.
ActivityHandler delivering(json::Object (*h)(ActivityContext&, const json::Object&,
                                             const PluginState&, int),
                           int v, std::shared_ptr<const PluginState> state) {
  return
      [h, v, state](ActivityContext& ctx, const json::Object& p) { return h(ctx, p, *state, v); };
}

void registerSessions(Registry& r) {
  auto state = std::make_shared<const PluginState>(parseSettings(r.settings(), r.dataDir()));
  Poco::Net::initializeSSL();  // SMTP STARTTLS and https SMS providers
  if (state->settings.email.transport == "outbox" || state->settings.sms.transport == "outbox")
    r.startupNotice(
        "development delivery: " +
        std::string(state->settings.email.transport == "outbox" ? "email" : "") +
        (state->settings.email.transport == "outbox" && state->settings.sms.transport == "outbox"
             ? " and "
             : "") +
        (state->settings.sms.transport == "outbox" ? "SMS" : "") + " messages are written to " +
        state->settings.outboxDir +
        ", not sent (set plugins.settings.sessions.email.transport / sms.transport)");
  const bool parent = true;  // allowParentOrganization
  // clang-format off
  //          type                                           path                         intent key                         result key                         resource          action    root quorum only  handler                                     parent may submit
  r.activity({"ACTIVITY_TYPE_STAMP_LOGIN",                  "stamp_login",               "stampLoginIntent",                "stampLoginResult",                "AUTH",           "CREATE", false, stampLogin});
  r.activity({"ACTIVITY_TYPE_OTP_LOGIN",                    "otp_login",                 "otpLoginIntent",                  "otpLoginResult",                  "AUTH",           "CREATE", false, versioned(otpLogin, 1),                     parent});
  r.activity({"ACTIVITY_TYPE_OTP_LOGIN_V2",                 "otp_login",                 "otpLoginIntentV2",                "otpLoginResult",                  "AUTH",           "CREATE", false, versioned(otpLogin, 2),                     parent});
  r.activity({"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",    "create_read_write_session", "createReadWriteSessionIntent",    "createReadWriteSessionResult",    "AUTH",           "CREATE", false, versioned(createReadWriteSession, 1),       parent});
  r.activity({"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", "create_read_write_session", "createReadWriteSessionIntentV2",  "createReadWriteSessionResultV2",  "AUTH",           "CREATE", false, versioned(createReadWriteSession, 2)});
  r.activity({"ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",     "create_read_only_session",  "createReadOnlySessionIntent",     "createReadOnlySessionResult",     "AUTH",           "CREATE", false, createReadOnlySession});
  r.activity({"ACTIVITY_TYPE_CREATE_SESSION_PROFILE",       "create_session_profile",    "createSessionProfileIntent",      "createSessionProfileResult",      "SESSION_PROFILE","CREATE", false, createSessionProfile});
  r.activity({"ACTIVITY_TYPE_INIT_OTP",                     "init_otp",                  "initOtpIntent",                   "initOtpResult",                   "OTP",            "CREATE", false, delivering(initOtp, 1, state),                     parent});
  r.activity({"ACTIVITY_TYPE_INIT_OTP_V2",                  "init_otp",                  "initOtpIntentV2",                 "initOtpResult",                   "OTP",            "CREATE", false, delivering(initOtp, 2, state),                     parent});
  r.activity({"ACTIVITY_TYPE_INIT_OTP_V3",                  "init_otp",                  "initOtpIntentV3",                 "initOtpResultV2",                 "OTP",            "CREATE", false, delivering(initOtp, 3, state),                     parent});
  r.activity({"ACTIVITY_TYPE_VERIFY_OTP",                   "verify_otp",                "verifyOtpIntent",                 "verifyOtpResult",                 "OTP",            "VERIFY", false, versioned(verifyOtp, 1),                    parent});
  r.activity({"ACTIVITY_TYPE_VERIFY_OTP_V2",                "verify_otp",                "verifyOtpIntentV2",               "verifyOtpResult",                 "OTP",            "VERIFY", false, versioned(verifyOtp, 2),                    parent});
  r.activity({"ACTIVITY_TYPE_INIT_OTP_AUTH",                "init_otp_auth",             "initOtpAuthIntent",               "initOtpAuthResult",               "OTP",            "CREATE", false, delivering(initOtpAuth, 1, state),                 parent});
  r.activity({"ACTIVITY_TYPE_INIT_OTP_AUTH_V2",             "init_otp_auth",             "initOtpAuthIntentV2",             "initOtpAuthResultV2",             "OTP",            "CREATE", false, delivering(initOtpAuth, 2, state),                 parent});
  r.activity({"ACTIVITY_TYPE_INIT_OTP_AUTH_V3",             "init_otp_auth",             "initOtpAuthIntentV3",             "initOtpAuthResultV2",             "OTP",            "CREATE", false, delivering(initOtpAuth, 3, state),                 parent});
  r.activity({"ACTIVITY_TYPE_OTP_AUTH",                     "otp_auth",                  "otpAuthIntent",                   "otpAuthResult",                   "AUTH",           "CREATE", false, otpAuth,                                    parent});
  r.activity({"ACTIVITY_TYPE_EMAIL_AUTH_V2",                "email_auth",                "emailAuthIntentV2",               "emailAuthResult",                 "AUTH",           "CREATE", false, delivering(emailAuth, 2, state),                   parent});
  r.activity({"ACTIVITY_TYPE_EMAIL_AUTH_V3",                "email_auth",                "emailAuthIntentV3",               "emailAuthResult",                 "AUTH",           "CREATE", false, delivering(emailAuth, 3, state),                   parent});

  r.query({"get_session_profile",  getSessionProfile});
  r.query({"get_session_profiles", getSessionProfiles});
  // clang-format on
  r.migrations("sessions", migrations());
  r.organizationDeletionHook(deleteOrganization);
  r.sessionProfileLookup(profileScope);
}

}  // namespace

// What the gateway reads from the file before loading it (signet/plugin_descriptor.hpp). The host
// refuses the plugin if these paths differ from what registerSessions registers.
SIGNET_PLUGIN(registerSessions,
              {.name = "sessions",
               .version = "0.1.0",
               .description = "sessions, session JWTs, OTP by email and SMS, email auth",
               .submitPaths = {"stamp_login", "otp_login", "create_read_write_session",
                               "create_read_only_session", "create_session_profile", "init_otp",
                               "verify_otp", "init_otp_auth", "otp_auth", "email_auth"},
               .queryPaths = {"get_session_profile", "get_session_profiles"}})
