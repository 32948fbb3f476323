// OTP over email and SMS: init_otp (V1-V3), verify_otp (V1, V2) with the
// verification token the SDKs decode (tkhq/sdk decodeVerificationToken), and the legacy
// init_otp_auth (V1-V3) / otp_auth and email_auth (V2, V3) that hand out a credential bundle
// instead.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

using signet::ActivityContext;
using signet::json::Object;

Object initOtp(ActivityContext& ctx, const Object& params, const PluginState& state);
Object verifyOtp(ActivityContext& ctx, const Object& params);
Object initOtpAuth(ActivityContext& ctx, const Object& params, const PluginState& state);
Object otpAuth(ActivityContext& ctx, const Object& params);
Object emailAuth(ActivityContext& ctx, const Object& params, const PluginState& state);
// init_user_email_recovery V1/V2: a recovery credential (CREDENTIAL_TYPE_RECOVER_USER_KEY_P256)
// emailed as a bundle; recover_user, stamped with it, adds the user's new authenticator.
Object initUserEmailRecovery(ActivityContext& ctx, const Object& params, const PluginState& state);

}  // namespace sessions
