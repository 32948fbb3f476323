// The sessions plugin's registration: one row per activity type or query. Logins, OTP and
// email auth may be submitted by the parent organization for a sub-organization (the
// auth-proxy pattern); the parent's own quorum and policies then govern them.
#include <Poco/Net/SSLManager.h>

#include <memory>

#include "email_events.hpp"
#include "logins.hpp"
#include "message_preview.hpp"
#include "messages.hpp"
#include "oauth.hpp"
#include "oauth2_authenticate.hpp"
#include "oauth2_credentials.hpp"
#include "otp.hpp"
#include "profiles.hpp"
#include "schema.hpp"

namespace {

using namespace signet;
using namespace sessions;

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
  // Each gateway that loads the plugin gets its own settings, delivery and key cache; the
  // handlers that need them hold them.
  auto withState = [state](const auto& shape, auto handler) -> ActivityHandler {
    return shape.handler(
        [handler, state](ActivityContext& ctx, const auto& p) { return handler(ctx, p, *state); });
  };
  r.activity({.type = "ACTIVITY_TYPE_STAMP_LOGIN",
              .path = "stamp_login",
              .intentKey = "stampLoginIntent",
              .resultKey = "stampLoginResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kStampLogin.handler(stampLogin),
              .parameters = kStampLogin.specs()});
  r.activity({.type = "ACTIVITY_TYPE_OTP_LOGIN",
              .path = "otp_login",
              .intentKey = "otpLoginIntent",
              .resultKey = "otpLoginResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kOtpLogin.handler(otpLogin),
              .allowParentOrganization = true,
              .parameters = kOtpLogin.specs(),
              .secrets = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_OTP_LOGIN_V2",
              .path = "otp_login",
              .intentKey = "otpLoginIntentV2",
              .resultKey = "otpLoginResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kOtpLogin.handler(otpLogin),
              .allowParentOrganization = true,
              .parameters = kOtpLogin.specs(),
              .secrets = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION",
              .path = "create_read_write_session",
              .intentKey = "createReadWriteSessionIntent",
              .resultKey = "createReadWriteSessionResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kCreateReadWriteSessionV1.handler(createReadWriteSession),
              .allowParentOrganization = true,
              .parameters = kCreateReadWriteSessionV1.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
              .path = "create_read_write_session",
              .intentKey = "createReadWriteSessionIntentV2",
              .resultKey = "createReadWriteSessionResultV2",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kCreateReadWriteSessionV2.handler(createReadWriteSession),
              .parameters = kCreateReadWriteSessionV2.specs()});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",
              .path = "create_read_only_session",
              .intentKey = "createReadOnlySessionIntent",
              .resultKey = "createReadOnlySessionResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = createReadOnlySession});
  r.activity({.type = "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
              .path = "create_session_profile",
              .intentKey = "createSessionProfileIntent",
              .resultKey = "createSessionProfileResult",
              .resource = "SESSION_PROFILE",
              .action = "CREATE",
              .handler = kCreateSessionProfile.handler(createSessionProfile),
              .parameters = kCreateSessionProfile.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP",
              .path = "init_otp",
              .intentKey = "initOtpIntent",
              .resultKey = "initOtpResult",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtp, initOtp),
              .allowParentOrganization = true,
              .parameters = kInitOtp.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP_V2",
              .path = "init_otp",
              .intentKey = "initOtpIntentV2",
              .resultKey = "initOtpResult",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtpNamed, initOtp),
              .allowParentOrganization = true,
              .parameters = kInitOtpNamed.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP_V3",
              .path = "init_otp",
              .intentKey = "initOtpIntentV3",
              .resultKey = "initOtpResultV2",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtpNamed, initOtp),
              .allowParentOrganization = true,
              .parameters = kInitOtpNamed.specs()});
  r.activity({.type = "ACTIVITY_TYPE_VERIFY_OTP",
              .path = "verify_otp",
              .intentKey = "verifyOtpIntent",
              .resultKey = "verifyOtpResult",
              .resource = "OTP",
              .action = "VERIFY",
              .handler = kVerifyOtpV1.handler(verifyOtp),
              .allowParentOrganization = true,
              .parameters = kVerifyOtpV1.specs(),
              .secrets = {"otpCode"},
              .secretResults = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_VERIFY_OTP_V2",
              .path = "verify_otp",
              .intentKey = "verifyOtpIntentV2",
              .resultKey = "verifyOtpResult",
              .resource = "OTP",
              .action = "VERIFY",
              .handler = kVerifyOtpV2.handler(verifyOtp),
              .allowParentOrganization = true,
              .parameters = kVerifyOtpV2.specs(),
              .secretResults = {"verificationToken"}});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP_AUTH",
              .path = "init_otp_auth",
              .intentKey = "initOtpAuthIntent",
              .resultKey = "initOtpAuthResult",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtp, initOtpAuth),
              .allowParentOrganization = true,
              .parameters = kInitOtp.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP_AUTH_V2",
              .path = "init_otp_auth",
              .intentKey = "initOtpAuthIntentV2",
              .resultKey = "initOtpAuthResultV2",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtp, initOtpAuth),
              .allowParentOrganization = true,
              .parameters = kInitOtp.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_OTP_AUTH_V3",
              .path = "init_otp_auth",
              .intentKey = "initOtpAuthIntentV3",
              .resultKey = "initOtpAuthResultV2",
              .resource = "OTP",
              .action = "CREATE",
              .handler = withState(kInitOtpNamed, initOtpAuth),
              .allowParentOrganization = true,
              .parameters = kInitOtpNamed.specs()});
  r.activity({.type = "ACTIVITY_TYPE_OTP_AUTH",
              .path = "otp_auth",
              .intentKey = "otpAuthIntent",
              .resultKey = "otpAuthResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = kOtpAuth.handler(otpAuth),
              .allowParentOrganization = true,
              .parameters = kOtpAuth.specs(),
              .secrets = {"otpCode"}});
  r.activity({.type = "ACTIVITY_TYPE_EMAIL_AUTH_V2",
              .path = "email_auth",
              .intentKey = "emailAuthIntentV2",
              .resultKey = "emailAuthResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = withState(kEmailCredential, emailAuth),
              .allowParentOrganization = true,
              .parameters = kEmailCredential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_EMAIL_AUTH_V3",
              .path = "email_auth",
              .intentKey = "emailAuthIntentV3",
              .resultKey = "emailAuthResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = withState(kEmailCredentialCustomized, emailAuth),
              .allowParentOrganization = true,
              .parameters = kEmailCredentialCustomized.specs()});

  r.activity({.type = "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY",
              .path = "init_user_email_recovery",
              .intentKey = "initUserEmailRecoveryIntent",
              .resultKey = "initUserEmailRecoveryResult",
              .resource = "RECOVERY",
              .action = "CREATE",
              .handler = withState(kEmailCredential, initUserEmailRecovery),
              .allowParentOrganization = true,
              .parameters = kEmailCredential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
              .path = "init_user_email_recovery",
              .intentKey = "initUserEmailRecoveryIntentV2",
              .resultKey = "initUserEmailRecoveryResult",
              .resource = "RECOVERY",
              .action = "CREATE",
              .handler = withState(kEmailCredentialCustomized, initUserEmailRecovery),
              .allowParentOrganization = true,
              .parameters = kEmailCredentialCustomized.specs()});
  // Invitations are the core's; this plugin, which sends email, delivers them after the commit
  // and removes one it could not send.
  r.subscribe(kEventInvitationCreated, [state](ActivityContext& ctx, const std::string&,
                                               const json::Object& e) {
    auto get = [&](const char* k) { return e->getValue<std::string>(k); };
    ctx.afterCommit(emailCall(
        get("organizationId"),
        [&delivery = state->delivery,
         m = invitationEmail(state->settings, get("receiverUserEmail"), get("receiverUserName"),
                             get("organizationName"), get("senderUserName"), get("invitationId"))](
            EmailReport* report) { delivery.sendEmail(m, report); },
        [org = get("organizationId"), id = get("invitationId")](ActivityContext& undo) {
          undo.services().identity.deleteInvitation(undo, org, id);
        }));
  });

  // OpenID Connect: the token's issuer keys are fetched before the transaction (prepare).
  r.activity({.type = "ACTIVITY_TYPE_OAUTH_LOGIN",
              .path = "oauth_login",
              .intentKey = "oauthLoginIntent",
              .resultKey = "oauthLoginResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = withState(kOauthLogin, oauthLogin),
              .allowParentOrganization = true,
              .parameters = kOauthLogin.specs(),
              .prepare = oidcTokenPreparer(state),
              .secrets = {"oidcToken"}});
  r.activity({.type = "ACTIVITY_TYPE_OAUTH",
              .path = "oauth",
              .intentKey = "oauthIntent",
              .resultKey = "oauthResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = withState(kOauth, oauth),
              .allowParentOrganization = true,
              .parameters = kOauth.specs(),
              .prepare = oidcTokenPreparer(state),
              .secrets = {"oidcToken"}});
  r.oidcVerifier(oidcVerifier(state));

  // OAuth 2.0 without OpenID Connect (X, Discord): the code is exchanged before the transaction.
  r.activity({.type = "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
              .path = "create_oauth2_credential",
              .intentKey = "createOauth2CredentialIntent",
              .resultKey = "createOauth2CredentialResult",
              .resource = "OAUTH2_CREDENTIAL",
              .action = "CREATE",
              .handler = kCreateOauth2Credential.handler(createOauth2Credential),
              .parameters = kCreateOauth2Credential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
              .path = "update_oauth2_credential",
              .intentKey = "updateOauth2CredentialIntent",
              .resultKey = "updateOauth2CredentialResult",
              .resource = "OAUTH2_CREDENTIAL",
              .action = "UPDATE",
              .handler = kUpdateOauth2Credential.handler(updateOauth2Credential),
              .parameters = kUpdateOauth2Credential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
              .path = "delete_oauth2_credential",
              .intentKey = "deleteOauth2CredentialIntent",
              .resultKey = "deleteOauth2CredentialResult",
              .resource = "OAUTH2_CREDENTIAL",
              .action = "DELETE",
              .handler = kDeleteOauth2Credential.handler(deleteOauth2Credential),
              .parameters = kDeleteOauth2Credential.specs()});
  r.activity({.type = "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
              .path = "oauth2_authenticate",
              .intentKey = "oauth2AuthenticateIntent",
              .resultKey = "oauth2AuthenticateResult",
              .resource = "AUTH",
              .action = "CREATE",
              .handler = withState(kOauth2Authenticate, oauth2Authenticate),
              .allowParentOrganization = true,
              .parameters = kOauth2Authenticate.specs(),
              .prepare = oauth2Preparer(state),
              .secrets = {"authCode", "codeVerifier"},
              .secretResults = {"oidcToken"}});

  // clang-format off
  r.query({"get_session_profile",     getSessionProfile});
  r.query({"get_session_profiles",    getSessionProfiles});
  r.query({"get_oauth2_credential",   getOauth2Credential});
  r.query({"list_oauth2_credentials", listOauth2Credentials});
  r.query({"list_email_events",       listEmailEvents});
  r.query({"signet_preview_otp_message", [state](RequestContext& ctx, const json::Object& b) {
             return previewOtpMessage(*state, ctx, b); }});
  // clang-format on
  r.migrations("sessions", migrations());
  r.organizationDeletionHook(deleteOrganization);
  r.sessionProfileLookup(profileScope);
}

}  // namespace

// What the gateway reads from the file before loading it (signet/plugin_descriptor.hpp). The host
// refuses the plugin if these paths differ from what registerSessions registers.
SIGNET_PLUGIN(
    registerSessions,
    {.name = "sessions",
     .version = "0.1.0",
     .description = "sessions, session JWTs, OTP by email and SMS, email auth, OIDC logins",
     .submitPaths = {"stamp_login", "otp_login", "create_read_write_session",
                     "create_read_only_session", "create_session_profile", "init_otp", "verify_otp",
                     "init_otp_auth", "otp_auth", "email_auth", "oauth_login", "oauth",
                     "create_oauth2_credential", "update_oauth2_credential",
                     "delete_oauth2_credential", "oauth2_authenticate", "init_user_email_recovery"},
     .queryPaths = {"get_session_profile", "get_session_profiles", "get_oauth2_credential",
                    "list_oauth2_credentials", "list_email_events", "signet_preview_otp_message"}})
