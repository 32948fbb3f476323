#include "purchase.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "signet/error.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {

// The public API's FIAT_ON_RAMP_CURRENCY_* values.
constexpr std::array kFiatCurrencies = {
    "AUD", "BGN", "BRL", "CAD", "CHF", "COP", "CZK", "DKK", "DOP", "EGP", "EUR", "GBP",
    "HKD", "IDR", "ILS", "JOD", "KES", "KWD", "LKR", "MXN", "NGN", "NOK", "NZD", "OMR",
    "PEN", "PLN", "RON", "SEK", "THB", "TRY", "TWD", "USD", "VND", "ZAR"};

// FIAT_ON_RAMP_PAYMENT_METHOD_* and each provider's name for it; empty where the provider does
// not offer it (MoonPay's widget parameter paymentMethod, Coinbase's defaultPaymentMethod).
struct PaymentMethod {
  const char* suffix;
  const char* moonPay;
  const char* coinbase;
};
constexpr std::array kPaymentMethods = {
    PaymentMethod{"CREDIT_DEBIT_CARD", "credit_debit_card", "CARD"},
    PaymentMethod{"APPLE_PAY", "apple_pay", "APPLE_PAY"},
    PaymentMethod{"GBP_BANK_TRANSFER", "gbp_bank_transfer", ""},
    PaymentMethod{"GBP_OPEN_BANKING_PAYMENT", "gbp_open_banking_payment", ""},
    PaymentMethod{"GOOGLE_PAY", "google_pay", ""},
    PaymentMethod{"SEPA_BANK_TRANSFER", "sepa_bank_transfer", ""},
    PaymentMethod{"PIX_INSTANT_PAYMENT", "pix_instant_payment", ""},
    PaymentMethod{"PAYPAL", "paypal", "PAYPAL"},
    PaymentMethod{"VENMO", "venmo", ""},
    PaymentMethod{"MOONPAY_BALANCE", "moonpay_balance", ""},
    PaymentMethod{"CRYPTO_ACCOUNT", "", "CRYPTO_ACCOUNT"},
    PaymentMethod{"FIAT_WALLET", "", "FIAT_WALLET"},
    PaymentMethod{"ACH_BANK_ACCOUNT", "ach_bank_transfer", "ACH_BANK_ACCOUNT"},
};

// Both providers refuse purchases of 20 units of fiat or less (the public API: "must be
// greater than '20'").
constexpr double kMinimumFiatAmount = 20;

// The part of an enum value after its prefix; empty when the field is absent or empty.
std::string suffixOf(const std::string& key, const std::optional<std::string>& value,
                     const std::string& prefix) {
  if (!value || value->empty()) return "";
  if (value->rfind(prefix, 0) != 0)
    throw invalidArgument("invalid field parameters." + key + ": \"" + *value + "\" (expected " +
                          prefix + "*)");
  return value->substr(prefix.size());
}

Error unknown(const std::string& key, const std::string& value, const std::string& expected) {
  return invalidArgument("invalid field parameters." + key + ": \"" + value + "\" (" + expected +
                         ")");
}

const PaymentMethod* paymentMethodOf(const Purchase& p) {
  for (const auto& m : kPaymentMethods)
    if (p.paymentMethodSuffix == m.suffix) return &m;
  return nullptr;
}

bool isDecimal(const std::string& s) {
  size_t dot = s.find('.');
  if (s.empty() || s.size() > 20 || dot == 0 || dot + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && (s[i] < '0' || s[i] > '9')) return false;
  return s.find('.', dot == std::string::npos ? s.size() : dot + 1) == std::string::npos;
}

bool isUpperAlpha(const std::string& s, size_t low, size_t high) {
  return s.size() >= low && s.size() <= high &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}
}  // namespace

const std::string& checkProvider(const std::string& v, const std::string& field) {
  if (v != kMoonPay && v != kCoinbase)
    throw invalidArgument("invalid field " + field + ": \"" + v + "\" (expected " + kMoonPay +
                          " or " + kCoinbase + ")");
  return v;
}

const Shape<PurchaseParameters> kInitFiatOnRamp = {
    field("onrampProvider", &PurchaseParameters::onrampProvider),
    field("walletAddress", &PurchaseParameters::walletAddress,
          {.maxLength = 128, .displayName = true}),
    field("network", &PurchaseParameters::network),
    field("cryptoCurrencyCode", &PurchaseParameters::cryptoCurrencyCode),
    field("fiatCurrencyCode", &PurchaseParameters::fiatCurrencyCode),
    field("fiatCurrencyAmount", &PurchaseParameters::fiatCurrencyAmount),
    field("paymentMethod", &PurchaseParameters::paymentMethod),
    field("countryCode", &PurchaseParameters::countryCode),
    field("countrySubdivisionCode", &PurchaseParameters::countrySubdivisionCode),
    field("sandboxMode", &PurchaseParameters::sandboxMode),
    field("urlForSignature", &PurchaseParameters::urlForSignature, {.maxLength = 4096})};

Purchase parsePurchase(const PurchaseParameters& in) {
  Purchase p;
  p.provider = checkProvider(in.onrampProvider, "parameters.onrampProvider");
  p.walletAddress = in.walletAddress;

  static const std::map<std::string, std::string> kNetworks = {
      {"BITCOIN", "bitcoin"}, {"ETHEREUM", "ethereum"}, {"SOLANA", "solana"}, {"BASE", "base"}};
  std::string network = suffixOf("network", in.network, "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_");
  auto n = kNetworks.find(network);
  if (n == kNetworks.end())
    throw unknown("network", in.network,
                  "expected FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BITCOIN, _ETHEREUM, _SOLANA or _BASE");
  p.network = n->second;

  p.asset = suffixOf("cryptoCurrencyCode", in.cryptoCurrencyCode, "FIAT_ON_RAMP_CRYPTO_CURRENCY_");
  if (p.asset != "BTC" && p.asset != "ETH" && p.asset != "SOL" && p.asset != "USDC")
    throw unknown("cryptoCurrencyCode", in.cryptoCurrencyCode,
                  "expected FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC, _ETH, _SOL or _USDC");
  // What each network carries: BTC only on Bitcoin, SOL only on Solana, ETH on Ethereum and
  // Base, USDC on Ethereum, Solana and Base.
  bool carried = (p.asset == "BTC" && p.network == "bitcoin") ||
                 (p.asset == "SOL" && p.network == "solana") ||
                 (p.asset == "ETH" && (p.network == "ethereum" || p.network == "base")) ||
                 (p.asset == "USDC" && p.network != "bitcoin");
  if (!carried)
    throw invalidArgument("invalid field parameters.cryptoCurrencyCode: " + p.asset +
                          " is not bought on parameters.network " + network);

  p.fiatCurrency = suffixOf("fiatCurrencyCode", in.fiatCurrencyCode, "FIAT_ON_RAMP_CURRENCY_");
  if (!p.fiatCurrency.empty() && std::find(kFiatCurrencies.begin(), kFiatCurrencies.end(),
                                           p.fiatCurrency) == kFiatCurrencies.end())
    throw unknown("fiatCurrencyCode", *in.fiatCurrencyCode,
                  "not a FIAT_ON_RAMP_CURRENCY_* of the public API");

  p.fiatAmount = in.fiatCurrencyAmount.value_or("");
  if (!p.fiatAmount.empty()) {
    if (!isDecimal(p.fiatAmount))
      throw unknown("fiatCurrencyAmount", p.fiatAmount, "a decimal number such as \"100\"");
    if (std::stod(p.fiatAmount) <= kMinimumFiatAmount)
      throw invalidArgument("invalid field parameters.fiatCurrencyAmount: \"" + p.fiatAmount +
                            "\" is below the providers' minimum (more than 20)");
  }

  p.paymentMethodSuffix =
      suffixOf("paymentMethod", in.paymentMethod, "FIAT_ON_RAMP_PAYMENT_METHOD_");
  if (!p.paymentMethodSuffix.empty()) {
    const PaymentMethod* m = paymentMethodOf(p);
    if (!m)
      throw unknown("paymentMethod", *in.paymentMethod, "not a FIAT_ON_RAMP_PAYMENT_METHOD_*");
    if (*(p.provider == kMoonPay ? m->moonPay : m->coinbase) == '\0')
      throw invalidArgument("invalid field parameters.paymentMethod: \"" + *in.paymentMethod +
                            "\" is not offered by " + p.provider);
  }

  p.countryCode = in.countryCode.value_or("");
  if (!p.countryCode.empty() && !isUpperAlpha(p.countryCode, 2, 2))
    throw unknown("countryCode", p.countryCode, "an ISO 3166-1 alpha-2 code such as \"US\"");
  p.countrySubdivisionCode = in.countrySubdivisionCode.value_or("");
  if (!p.countrySubdivisionCode.empty() && !isUpperAlpha(p.countrySubdivisionCode, 1, 3))
    throw unknown("countrySubdivisionCode", p.countrySubdivisionCode,
                  "an ISO 3166-2 subdivision such as \"NY\"");
  if (p.countryCode == "US" && p.countrySubdivisionCode.empty())
    throw invalidArgument(
        "missing field parameters.countrySubdivisionCode: required when countryCode is US");

  p.sandboxMode = in.sandboxMode.value_or(false);
  p.urlForSignature = in.urlForSignature;
  if (p.urlForSignature && p.provider != kMoonPay)
    throw invalidArgument(
        "invalid field parameters.urlForSignature: only MoonPay widget URLs are signed");
  return p;
}

std::string purchaseKey(const std::string& organizationId, const Purchase& p) {
  std::string text;
  // Each part with its length before it, so that no two purchases run together into one text.
  for (const std::string& part :
       {organizationId, p.provider, p.walletAddress, p.network, p.asset, p.fiatCurrency,
        p.fiatAmount, p.paymentMethodSuffix, p.countryCode, p.countrySubdivisionCode,
        std::string(p.sandboxMode ? "sandbox" : "live"), p.urlForSignature.value_or("")})
    text += std::to_string(part.size()) + ":" + part;
  return text;
}

std::string moonPayPaymentMethod(const Purchase& p) {
  const PaymentMethod* m = paymentMethodOf(p);
  return m ? m->moonPay : "";
}

std::string coinbasePaymentMethod(const Purchase& p) {
  const PaymentMethod* m = paymentMethodOf(p);
  return m ? m->coinbase : "";
}

std::string moonPayCurrencyCode(const Purchase& p) {
  std::string asset = p.asset;
  std::transform(asset.begin(), asset.end(), asset.begin(),
                 [](char c) { return static_cast<char>(c - 'A' + 'a'); });
  if (p.network == "base") return asset + "_base";
  if (p.network == "solana" && asset == "usdc") return "usdc_sol";
  return asset;
}

}  // namespace fiat_onramp
