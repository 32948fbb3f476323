// Coinbase's side of providers.hpp: the CDP Onramp API (docs.cdp.coinbase.com, "Session token
// authentication" and "Get onramp transactions by id").
#include <chrono>

#include "cdp_key.hpp"
#include "providers.hpp"
#include "signet/egress.hpp"
#include "signet/encoding.hpp"
#include "signet/error.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {
const char* kName = "Coinbase";

std::string secretText(const crypto::SecretBytes& s) {
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

// One authenticated call: a fresh JWT for this method and URL.
egress::Answer call(const Settings& s, const OpenedKeys& keys, const std::string& method,
                    const std::string& url, const std::string& body, int64_t nowMs) {
  auto key = CdpKey::parse(keys.privateKey, "the stored CDP private key");
  std::string keyId = secretText(keys.secret);
  std::string token = key.jwt(keyId, method, url.substr(0, url.find('?')), nowMs / 1000);
  std::fill(keyId.begin(), keyId.end(), '\0');
  return egress::exchange({.method = method,
                           .url = url,
                           .headers = {{"Authorization", "Bearer " + token}},
                           .contentType = body.empty() ? "" : "application/json",
                           .body = body},
                          providerRules(kName, s));
}

json::Object answerObject(const egress::Answer& a, const std::string& what) {
  if (a.status != 200)
    throw Error(Code::kUnavailable,
                std::string(kName) + " answered HTTP " + std::to_string(a.status) + " to " + what);
  try {
    return json::parseObject(a.body, "Coinbase's answer");
  } catch (const Error&) {
    throw Error(Code::kUnavailable, std::string(kName) + " answered " + what + " with no JSON");
  }
}

// ONRAMP_TRANSACTION_STATUS_CREATED, _IN_PROGRESS, _SUCCESS, _FAILED.
std::string mapped(const std::string& status) {
  if (status == "ONRAMP_TRANSACTION_STATUS_SUCCESS") return kCompleted;
  if (status == "ONRAMP_TRANSACTION_STATUS_FAILED") return kFailed;
  return kPending;
}
}  // namespace

std::string coinbaseSessionToken(const Settings& s, const Credential&, const OpenedKeys& keys,
                                 const Purchase& p, int64_t nowMs) {
  json::Object address = json::object();
  address->set("address", p.walletAddress);
  address->set("blockchains", json::stringArray({p.network}));
  json::Array addresses = json::array();
  addresses->add(address);
  json::Object body = json::object();
  body->set("addresses", addresses);
  body->set("assets", json::stringArray({p.asset}));
  auto answer = answerObject(
      call(s, keys, "POST", s.coinbase.apiUrl + "/onramp/v1/token", json::stringify(body), nowMs),
      "a session token request");
  // The current API answers {token, channel_id}; its first version wrapped them in "data".
  json::Object data = answer->has("data") ? answer->getObject("data") : answer;
  std::string token = data ? data->optValue<std::string>("token", "") : "";
  if (token.empty())
    throw Error(Code::kUnavailable, std::string(kName) + " answered no session token");
  return token;
}

std::string coinbaseWidgetUrl(const Settings& s, const Credential& c, const Purchase& p,
                              const std::string& sessionToken, const std::string& transactionId) {
  std::vector<std::pair<std::string, std::string>> query = {{"sessionToken", sessionToken},
                                                            {"defaultNetwork", p.network},
                                                            {"defaultAsset", p.asset},
                                                            {"partnerUserId", transactionId}};
  if (!p.fiatAmount.empty()) query.emplace_back("presetFiatAmount", p.fiatAmount);
  if (!p.fiatCurrency.empty()) query.emplace_back("fiatCurrency", p.fiatCurrency);
  if (auto method = coinbasePaymentMethod(p); !method.empty())
    query.emplace_back("defaultPaymentMethod", method);
  return (c.sandboxMode ? s.coinbase.sandboxWidgetUrl : s.coinbase.widgetUrl) +
         "/buy/select-asset?" + formEncode(query);
}

std::optional<std::string> coinbaseStatus(const Settings& s, const OpenedKeys& keys,
                                          const std::string& transactionId, int64_t nowMs) {
  std::string url =
      s.coinbase.apiUrl + "/onramp/v1/buy/user/" + percentEncode(transactionId) + "/transactions";
  auto answer = call(s, keys, "GET", url, "", nowMs);
  if (answer.status == 404) return std::nullopt;
  auto list = answerObject(answer, "a transaction status request")->getArray("transactions");
  if (!list || list->size() == 0) return std::nullopt;
  auto first = list->getObject(0);
  if (!first || !first->has("status"))
    throw Error(Code::kUnavailable, std::string(kName) + " answered a transaction without status");
  return mapped(first->getValue<std::string>("status"));
}

}  // namespace fiat_onramp
