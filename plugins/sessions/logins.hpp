// Logins and sessions: stamp_login, otp_login (V1, V2), create_read_write_session (V1, V2),
// create_read_only_session, and what they share: a session key registered for the user and a
// session JWT, or a fresh key sealed to the client as a credential bundle.
#pragma once

#include "plugin_state.hpp"
#include "signet/plugin.hpp"

namespace sessions {

inline constexpr int64_t kDefaultSessionSeconds = 900;

signet::json::Object stampLogin(signet::ActivityContext& ctx, const signet::json::Object& params);
signet::json::Object otpLogin(signet::ActivityContext& ctx, const signet::json::Object& params);
signet::json::Object createReadWriteSession(signet::ActivityContext& ctx,
                                            const signet::json::Object& params);
signet::json::Object createReadOnlySession(signet::ActivityContext& ctx,
                                           const signet::json::Object& params);

// Registers the intent's `publicKey` as the user's login key (with invalidateExisting and
// sessionProfileId) and signs the session JWT for it: {session}.
signet::json::Object loginSession(signet::ActivityContext& ctx, const signet::UserRef& user,
                                  const signet::json::Object& params);

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
std::string apiKeyNameOf(signet::ActivityContext& ctx, const signet::json::Object& params,
                         const std::string& prefix);

// expirationSeconds of an intent: positive, default kDefaultSessionSeconds.
int64_t lifetimeOf(const signet::json::Object& params);

}  // namespace sessions
