#include "settings.hpp"

#include "signet/error.hpp"

namespace fiat_onramp {

using namespace signet;

namespace {
const std::string kPath = "plugins.settings.fiat-onramp";

void readUrls(const json::Object& o, const char* provider, ProviderUrls& urls, bool allowHttp) {
  json::Object p = o->getObject(provider);
  if (!p) return;
  std::string path = kPath + "." + provider;
  for (auto [key, field] :
       {std::pair{"widgetUrl", &urls.widgetUrl},
        std::pair{"sandboxWidgetUrl", &urls.sandboxWidgetUrl}, std::pair{"apiUrl", &urls.apiUrl}}) {
    auto value = json::optionalString(p, key, path);
    if (!value) continue;
    std::string url = *value;
    while (!url.empty() && url.back() == '/') url.pop_back();
    bool https = url.rfind("https://", 0) == 0;
    bool http = url.rfind("http://", 0) == 0;
    if (!https && !(http && allowHttp))
      throw invalidArgument("invalid field " + path + "." + key + ": \"" + *value +
                            "\" (an https:// URL; http:// only with allowInsecureUrls)");
    *field = url;
  }
}
}  // namespace

Settings parseSettings(const json::Object& o) {
  Settings s;
  s.allowInsecureUrls = json::optionalBool(o, "allowInsecureUrls", kPath, false);
  readUrls(o, "moonpay", s.moonpay, s.allowInsecureUrls);
  readUrls(o, "coinbase", s.coinbase, s.allowInsecureUrls);
  s.timeoutSeconds = json::optionalIntInRange(o, "timeoutSeconds", kPath, s.timeoutSeconds, 1, 120);
  s.pollIntervalSeconds =
      json::optionalIntInRange(o, "pollIntervalSeconds", kPath, s.pollIntervalSeconds, 0, 86400);
  s.pollWindowHours =
      json::optionalIntInRange(o, "pollWindowHours", kPath, s.pollWindowHours, 1, 24 * 30);
  return s;
}

signet::egress::Rules providerRules(const std::string& provider, const Settings& s) {
  return {.peer = provider,
          .deadline = signet::egress::Clock::now() + std::chrono::seconds(s.timeoutSeconds),
          .allowHttp = s.allowInsecureUrls,
          .allowInternal = true};
}

}  // namespace fiat_onramp
