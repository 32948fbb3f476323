// Logins and sessions: stamp_login, otp_login (V1, V2), create_read_write_session (V1, V2),
// create_read_only_session, and what they share: a session key registered for the user and a
// session JWT, or a fresh key sealed to the client as a credential bundle.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace sessions {

inline constexpr int64_t kDefaultSessionSeconds = 900;

// stamp_login, otp_login and oauth_login (oauth.hpp): a login key and the session JWT for it.
// Each shape reads the fields its activity has.
struct LoginParameters {
  std::string publicKey;
  std::optional<int64_t> expirationSeconds;
  std::optional<std::string> sessionProfileId;
  std::optional<bool> invalidateExisting;
  std::string verificationToken;                        // otp_login
  std::optional<signet::json::Object> clientSignature;  // otp_login
  std::string oidcToken;                                // oauth_login
};
// create_read_write_session, otp_auth (otp.hpp) and oauth (oauth.hpp): a fresh key, sealed to
// the client's targetPublicKey.
struct BundleParameters {
  std::string targetPublicKey;
  std::optional<std::string> apiKeyName;
  std::optional<int64_t> expirationSeconds;
  std::optional<bool> invalidateExisting;  // not create_read_write_session V1's
  std::string email;                       // create_read_write_session V1
  std::optional<std::string> userId;       // create_read_write_session V2
  std::string otpId, otpCode;              // otp_auth
  std::string oidcToken;                   // oauth
};
extern const signet::Shape<LoginParameters> kStampLogin, kOtpLogin;
extern const signet::Shape<BundleParameters> kCreateReadWriteSessionV1, kCreateReadWriteSessionV2;

signet::json::Object stampLogin(signet::ActivityContext& ctx, const LoginParameters& params);
signet::json::Object otpLogin(signet::ActivityContext& ctx, const LoginParameters& params);
signet::json::Object createReadWriteSession(signet::ActivityContext& ctx,
                                            const BundleParameters& params);
signet::json::Object createReadOnlySession(signet::ActivityContext& ctx,
                                           const signet::json::Object& params);

// Registers the intent's `publicKey` as the user's login key (with invalidateExisting and
// sessionProfileId) and signs the session JWT for it: {session}.
signet::json::Object loginSession(signet::ActivityContext& ctx, const signet::UserRef& user,
                                  const LoginParameters& params);

// A P-256 key made for the user, registered as `credentialType` and sealed to the client's
// `targetPublicKey` (field `field`): {apiKeyId, credentialBundle}.
struct IssuedCredential {
  std::string apiKeyId;
  std::string credentialBundle;
};
IssuedCredential issueCredentialBundle(signet::ActivityContext& ctx, const signet::UserRef& user,
                                       const std::string& targetPublicKey,
                                       const std::string& credentialType,
                                       const std::string& apiKeyName, int64_t expirationSeconds,
                                       bool invalidateExisting);

// A P-256 public key in hex (any SEC1 form) as compressed hex; InvalidArgument naming `field`.
std::string compressedP256(const std::string& hex, const std::string& field);

// "<prefix> - <epoch seconds>": the name of a key the gateway makes for a user.
std::string keyName(const std::string& prefix, int64_t nowMs);
// The intent's apiKeyName, else keyName(prefix, now).
std::string apiKeyNameOf(signet::ActivityContext& ctx, const std::optional<std::string>& apiKeyName,
                         const std::string& prefix);

// expirationSeconds of an intent: positive, default kDefaultSessionSeconds.
int64_t lifetimeOf(const std::optional<int64_t>& expirationSeconds);

}  // namespace sessions
