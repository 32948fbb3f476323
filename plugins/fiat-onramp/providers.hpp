// The two providers' own protocols: the widget URL the user is sent to, MoonPay's URL signature,
// Coinbase's session token, and each provider's report of a transaction. Where the providers'
// documentation is silent, the choice made is written down in docs/fiat-onramp.md.
#pragma once

#include <optional>
#include <string>

#include "credentials.hpp"
#include "purchase.hpp"
#include "settings.hpp"

namespace fiat_onramp {

// Transaction statuses as get_onramp_transaction_status reports them. The wallet kits treat
// COMPLETED, FAILED and CANCELLED as final.
inline constexpr const char* kPending = "PENDING";
inline constexpr const char* kCompleted = "COMPLETED";
inline constexpr const char* kFailed = "FAILED";

// A credential's keys, opened from the keyring for one call.
struct OpenedKeys {
  signet::crypto::SecretBytes secret;
  signet::crypto::SecretBytes privateKey;  // Coinbase only
};
OpenedKeys openKeys(signet::RequestContext& ctx, const Credential& c);

// MoonPay: HMAC-SHA256 of the URL's query string, '?' included, under the secret key, in
// base64 (dev.moonpay.com, "Enhance security using signed URLs").
std::string moonPaySignature(const signet::crypto::SecretBytes& secret, const std::string& url);
// The widget URL with apiKey, currencyCode, walletAddress, externalTransactionId and the
// optional presets, signed (MoonPay requires a signature whenever walletAddress is given).
std::string moonPayWidgetUrl(const Settings& s, const Credential& c, const OpenedKeys& keys,
                             const Purchase& p, const std::string& transactionId);
// Checks that `url` is one of the configured MoonPay widgets before its signature is made, so
// that the secret key signs nothing else. InvalidArgument naming the field.
void requireMoonPayWidgetUrl(const Settings& s, const std::string& url);

// Coinbase: a session token for the purchase's address and asset (POST /onramp/v1/token).
std::string coinbaseSessionToken(const Settings& s, const Credential& c, const OpenedKeys& keys,
                                 const Purchase& p, int64_t nowMs);
std::string coinbaseWidgetUrl(const Settings& s, const Credential& c, const Purchase& p,
                              const std::string& sessionToken, const std::string& transactionId);

// Each provider's report of a transaction (moonpay.cpp, coinbase.cpp), and the one to ask.
std::optional<std::string> moonPayStatus(const Settings& s, const Credential& c,
                                         const OpenedKeys& keys, const std::string& transactionId);
std::optional<std::string> coinbaseStatus(const Settings& s, const OpenedKeys& keys,
                                          const std::string& transactionId, int64_t nowMs);
// What the provider reports of the transaction, mapped to the statuses above; nullopt while the
// provider knows nothing of it (the user has not reached the widget yet). Unavailable naming
// the provider when it cannot be asked.
std::optional<std::string> providerStatus(const Settings& s, const Credential& c,
                                          const OpenedKeys& keys, const std::string& transactionId,
                                          int64_t nowMs);

}  // namespace fiat_onramp
