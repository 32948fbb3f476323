// OTP over email and SMS: init_otp (V1-V3), verify_otp (V1, V2) with the
// verification token the SDKs decode (tkhq/sdk decodeVerificationToken), and the legacy
// init_otp_auth (V1-V3) / otp_auth and email_auth (V2, V3) that hand out a credential bundle
// instead.
#pragma once

#include "logins.hpp"
#include "messages.hpp"
#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

using signet::ActivityContext;
using signet::json::Object;

struct VerifyOtpParameters {
  std::string otpId;
  std::optional<std::string> otpCode, publicKey;  // V1
  // V2: {otp_code, public_key}, sealed to the OTP's target key (otpEncryptionTargetBundle).
  std::optional<std::string> encryptedOtpBundle;
  std::optional<int64_t> expirationSeconds;
};
// init_otp and init_otp_auth; appName is required from init_otp V2 and init_otp_auth V3.
extern const signet::Shape<MessageParameters> kInitOtp, kInitOtpNamed;
// email_auth and init_user_email_recovery; emailCustomization is required from email_auth V3
// and init_user_email_recovery V2.
extern const signet::Shape<MessageParameters> kEmailCredential, kEmailCredentialCustomized;
extern const signet::Shape<VerifyOtpParameters> kVerifyOtpV1, kVerifyOtpV2;
extern const signet::Shape<BundleParameters> kOtpAuth;

Object initOtp(ActivityContext& ctx, const MessageParameters& params, const PluginState& state);
Object verifyOtp(ActivityContext& ctx, const VerifyOtpParameters& params);
Object initOtpAuth(ActivityContext& ctx, const MessageParameters& params, const PluginState& state);
Object otpAuth(ActivityContext& ctx, const BundleParameters& params);
Object emailAuth(ActivityContext& ctx, const MessageParameters& params, const PluginState& state);
// init_user_email_recovery V1/V2: a recovery credential (CREDENTIAL_TYPE_RECOVER_USER_KEY_P256)
// emailed as a bundle; recover_user, stamped with it, adds the user's new authenticator.
Object initUserEmailRecovery(ActivityContext& ctx, const MessageParameters& params,
                             const PluginState& state);

}  // namespace sessions
