// MoonPay's side of providers.hpp.
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <chrono>

#include "providers.hpp"
#include "signet/egress.hpp"
#include "signet/encoding.hpp"
#include "signet/error.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {
const char* kName = "MoonPay";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// MoonPay's transaction statuses: waitingPayment, pending, waitingAuthorization, failed,
// completed (dev.moonpay.com, "Get buy transaction").
std::string mapped(const std::string& status) {
  if (status == "completed") return kCompleted;
  if (status == "failed") return kFailed;
  return kPending;
}
}  // namespace

std::string moonPaySignature(const crypto::SecretBytes& secret, const std::string& url) {
  size_t query = url.find('?');
  std::string search = query == std::string::npos ? "" : url.substr(query);
  search = search.substr(0, search.find('#'));
  auto mac = crypto::hmacSha256(Bytes(secret.data(), secret.data() + secret.size()),
                                reinterpret_cast<const uint8_t*>(search.data()), search.size());
  return base64Encode(mac.data(), mac.size());
}

void requireMoonPayWidgetUrl(const Settings& s, const std::string& url) {
  for (const auto& widget : {s.moonpay.widgetUrl, s.moonpay.sandboxWidgetUrl})
    if (url.rfind(widget, 0) == 0 && url.size() > widget.size() &&
        (url[widget.size()] == '?' || url[widget.size()] == '/') &&
        url.find('?') != std::string::npos)
      return;
  throw invalidArgument("invalid field parameters.urlForSignature: \"" + url +
                        "\" is not a MoonPay widget URL with a query (" + s.moonpay.widgetUrl +
                        " or " + s.moonpay.sandboxWidgetUrl + ")");
}

std::string moonPayWidgetUrl(const Settings& s, const Credential& c, const OpenedKeys& keys,
                             const Purchase& p, const std::string& transactionId) {
  std::vector<std::pair<std::string, std::string>> query = {
      {"apiKey", c.publishableApiKey},
      {"currencyCode", moonPayCurrencyCode(p)},
      {"walletAddress", p.walletAddress},
      {"externalTransactionId", transactionId}};
  if (!p.fiatCurrency.empty()) query.emplace_back("baseCurrencyCode", lower(p.fiatCurrency));
  if (!p.fiatAmount.empty()) query.emplace_back("baseCurrencyAmount", p.fiatAmount);
  if (auto method = moonPayPaymentMethod(p); !method.empty())
    query.emplace_back("paymentMethod", method);
  std::string url =
      (c.sandboxMode ? s.moonpay.sandboxWidgetUrl : s.moonpay.widgetUrl) + "?" + formEncode(query);
  return url + "&signature=" + percentEncode(moonPaySignature(keys.secret, url));
}

std::optional<std::string> moonPayStatus(const Settings& s, const Credential& c,
                                         const OpenedKeys& keys, const std::string& transactionId) {
  std::string url = s.moonpay.apiUrl + "/v1/transactions/ext/" + percentEncode(transactionId) +
                    "?" + formEncode({{"apiKey", c.publishableApiKey}});
  std::string secret(reinterpret_cast<const char*>(keys.secret.data()), keys.secret.size());
  auto answer = egress::exchange({.url = url, .headers = {{"Authorization", "Api-Key " + secret}}},
                                 providerRules(kName, s));
  std::fill(secret.begin(), secret.end(), '\0');
  if (answer.status == 404) return std::nullopt;
  if (answer.status != 200)
    throw Error(Code::kUnavailable, std::string(kName) + " answered HTTP " +
                                        std::to_string(answer.status) + " for transaction " +
                                        transactionId);
  json::Array list;
  try {
    list = Poco::JSON::Parser().parse(answer.body).extract<json::Array>();
  } catch (const Poco::Exception&) {
  }
  if (!list)
    throw Error(Code::kUnavailable, std::string(kName) + " answered something else than a list");
  if (list->size() == 0) return std::nullopt;
  // The external id is ours and unique, but MoonPay answers a list; the newest entry counts.
  auto last = list->getObject(static_cast<unsigned>(list->size() - 1));
  if (!last || !last->has("status"))
    throw Error(Code::kUnavailable, std::string(kName) + " answered a transaction without status");
  return mapped(last->getValue<std::string>("status"));
}

}  // namespace fiat_onramp
