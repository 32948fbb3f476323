// plugins.settings.fiat-onramp: where the providers are and how long to wait for them. Every
// field is optional; the defaults are the providers' real addresses.
//   moonpay.widgetUrl / moonpay.sandboxWidgetUrl / moonpay.apiUrl
//   coinbase.widgetUrl / coinbase.sandboxWidgetUrl / coinbase.apiUrl
// (docs/fiat-onramp.md describes each)
//   allowInsecureUrls     plain http:// provider URLs (tests and development only; `signet
//                         serve` says so at start-up)
//   timeoutSeconds        one provider call's connect-and-answer deadline (default 10)
//   pollIntervalSeconds   how often the worker asks the providers about pending transactions
//                         (default 60; 0 turns polling off, leaving refresh)
//   pollWindowHours       how long after its start a transaction is polled (default 24)
#pragma once

#include <string>

#include "signet/egress.hpp"
#include "signet/json.hpp"

namespace fiat_onramp {

struct ProviderUrls {
  std::string widgetUrl;         // where the user is sent
  std::string sandboxWidgetUrl;  // the same for sandbox credentials
  std::string apiUrl;            // the provider's server API
};

struct Settings {
  ProviderUrls moonpay{"https://buy.moonpay.com", "https://buy-sandbox.moonpay.com",
                       "https://api.moonpay.com"};
  ProviderUrls coinbase{"https://pay.coinbase.com", "https://pay-sandbox.coinbase.com",
                        "https://api.developer.coinbase.com"};
  bool allowInsecureUrls = false;
  int timeoutSeconds = 10;
  int pollIntervalSeconds = 60;
  int pollWindowHours = 24;
};

Settings parseSettings(const signet::json::Object& o);

// How a call to a provider's API may go: the URLs are the operator's (these settings), so any
// address may be used; plain http:// only with allowInsecureUrls; timeoutSeconds for the call.
signet::egress::Rules providerRules(const std::string& provider, const Settings& s);

}  // namespace fiat_onramp
