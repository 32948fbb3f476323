// signet_preview_otp_message: the OTP email and SMS that init_otp would send with a
// customization, rendered by the same templates with a sample code and sent nowhere. The
// operator console's AUTH section shows it beside the template fields, so what the preview
// shows is what users receive.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

// The body takes init_otp's customization fields (appName, emailCustomization,
// smsCustomization, sendFromEmailAddress, sendFromEmailSenderName, replyToEmailAddress) and
// otpLength (6-9), alphanumeric and expirationSeconds; each is checked as init_otp checks it.
signet::json::Object previewOtpMessage(const PluginState& state, signet::RequestContext& ctx,
                                       const signet::json::Object& body);

}  // namespace sessions
