// OTP over email and SMS (authproxy.md §3): init_otp (V1-V3), verify_otp (V1, V2) with the
// verification token of wire.md §6, and the legacy init_otp_auth (V1-V3) / otp_auth and
// email_auth (V2, V3) that hand out a credential bundle instead.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

using signet::ActivityContext;
using signet::json::Object;

Object initOtp(ActivityContext& ctx, const Object& params, const PluginState& state, int version);
Object verifyOtp(ActivityContext& ctx, const Object& params, int version);
Object initOtpAuth(ActivityContext& ctx, const Object& params, const PluginState& state,
                   int version);
Object otpAuth(ActivityContext& ctx, const Object& params);
Object emailAuth(ActivityContext& ctx, const Object& params, const PluginState& state, int version);

}  // namespace sessions
