// One-time codes: generation, storage (the code and the V3 target key sealed in the keyring),
// the limits the hosted service documents, and redemption. Limits: 3 tries per code, then it locks;
// at most 3 live codes and 3 requests per 3 minutes per user identifier (the client's
// userIdentifier, else the contact).
#pragma once

#include <optional>
#include <string>

#include "signet/plugin.hpp"

namespace sessions {

inline constexpr int kMaxAttempts = 3;
inline constexpr int kMaxLiveCodes = 3;
inline constexpr int kMaxRequestsPerWindow = 3;
inline constexpr int64_t kRateWindowMs = 3 * 60 * 1000;
// The message clients match to show MAX_OTP_INITIATED_ERROR.
inline constexpr const char* kMaxOtpsMessage = "Max number of OTPs have been initiated";
// The message clients match to show INVALID_OTP_CODE.
inline constexpr const char* kInvalidOtpMessage = "Invalid OTP code";

struct OtpRequest {
  std::string otpType;  // OTP_TYPE_EMAIL or OTP_TYPE_SMS
  std::string contact;
  std::string purpose;  // "verify" (init_otp) or "auth" (init_otp_auth)
  std::string rateKey;
  int length = 9;
  bool alphanumeric = true;
  int64_t expirationSeconds = 300;
  bool withTargetKey = false;  // INIT_OTP_V3: the code comes back HPKE-encrypted
};

struct OtpRecord {
  std::string id;
  std::string organizationId;
  std::string otpType;
  std::string contact;
  std::string purpose;
  int64_t expiresAtMs = 0;
};

// A code of `length` characters: digits, or Crockford base32 (no I, L, O, U).
std::string generateCode(int length, bool alphanumeric);

// Checks the limits (ResourceExhausted with kMaxOtpsMessage), stores the OTP and returns its
// id; with withTargetKey also the target public key (uncompressed hex). The code itself is
// returned through `code` for delivery and is otherwise only in the keyring.
struct CreatedOtp {
  std::string id;
  std::string code;
  std::string targetPublicKey;
};
CreatedOtp createOtp(signet::ActivityContext& ctx, const OtpRequest& request);

// Checks `code` for OTP `otpId` of the context's organization and purpose. A match spends the
// OTP and returns it; a mismatch counts a try (kept even though the activity fails) and throws
// InvalidArgument starting with kInvalidOtpMessage, as does an unknown, spent, locked or
// expired OTP.
OtpRecord redeemOtp(signet::ActivityContext& ctx, const std::string& otpId, const std::string& code,
                    const std::string& purpose);

// The V3 target private key of an OTP (to open an encrypted code bundle); InvalidArgument
// when the OTP has none.
signet::crypto::SecretBytes otpTargetKey(signet::ActivityContext& ctx, const std::string& otpId);

// Removes an organization's OTPs and their sealed secrets (deletion hook).
// Removes an OTP and its secrets (its delivery failed: no usable code may be left).
void deleteOtp(signet::ActivityContext& ctx, const std::string& otpId);
void deleteOrganizationOtps(signet::ActivityContext& ctx, const std::string& organizationId);

}  // namespace sessions
