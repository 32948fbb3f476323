// init_fiat_on_ramp's intent, checked: its shape gives each field's type and length, then every
// enum is checked against the public API's values and against what the chosen provider
// supports, the amount against the providers' minimum, and each refusal names its field and
// value.
#pragma once

#include <optional>
#include <string>

#include "signet/typed_parameters.hpp"

namespace fiat_onramp {

inline constexpr const char* kMoonPay = "FIAT_ON_RAMP_PROVIDER_MOONPAY";
inline constexpr const char* kCoinbase = "FIAT_ON_RAMP_PROVIDER_COINBASE";

// FIAT_ON_RAMP_PROVIDER_*, or InvalidArgument naming `field`.
const std::string& checkProvider(const std::string& provider, const std::string& field);

// The intent as sent (InitFiatOnRampIntent), its types checked by kInitFiatOnRamp.
struct PurchaseParameters {
  std::string onrampProvider, walletAddress, network, cryptoCurrencyCode;
  std::optional<std::string> fiatCurrencyCode, fiatCurrencyAmount, paymentMethod;
  std::optional<std::string> countryCode, countrySubdivisionCode;
  std::optional<bool> sandboxMode;
  std::optional<std::string> urlForSignature;
};
extern const signet::Shape<PurchaseParameters> kInitFiatOnRamp;

struct Purchase {
  std::string provider;  // kMoonPay or kCoinbase
  std::string walletAddress;
  std::string network;              // bitcoin, ethereum, solana, base
  std::string asset;                // BTC, ETH, SOL, USDC
  std::string fiatCurrency;         // ISO 4217, upper case; empty: the user picks
  std::string fiatAmount;           // decimal text; empty: the user enters it
  std::string paymentMethodSuffix;  // CREDIT_DEBIT_CARD, ...; empty: the user picks
  std::string countryCode;          // ISO 3166-1 alpha-2; may be empty
  std::string countrySubdivisionCode;
  bool sandboxMode = false;
  std::optional<std::string> urlForSignature;
};

// The purchase the intent names, or InvalidArgument naming the field and its value.
Purchase parsePurchase(const PurchaseParameters& parameters);

// The same text for the same purchase in the same organization, whatever the order or spelling
// of the intent's absent fields: the preparer and the handler meet on it.
std::string purchaseKey(const std::string& organizationId, const Purchase& p);

// The provider's own name for the payment method, or empty when the purchase names none.
std::string moonPayPaymentMethod(const Purchase& p);
std::string coinbasePaymentMethod(const Purchase& p);
// MoonPay's currency code for the asset on the network (eth, usdc_base, ...).
std::string moonPayCurrencyCode(const Purchase& p);

}  // namespace fiat_onramp
