#include "url_policy.hpp"

#include <Poco/URI.h>

#include <algorithm>

#include "signet/encoding.hpp"
#include "signet/error.hpp"

namespace webhooks {

signet::egress::Rules deliveryRules(bool allowInsecure, int timeoutSeconds) {
  return {.peer = "webhook endpoint",
          .deadline = signet::egress::Clock::now() + std::chrono::seconds(timeoutSeconds),
          .allowHttp = allowInsecure,
          .allowInternal = allowInsecure,
          .maxAnswerBytes = 64 * 1024};
}

std::string checkUrl(const std::string& url, const std::string& field, bool allowInsecure) {
  auto refuse = [&](const std::string& why) {
    return signet::invalidArgument("invalid field " + field + ": \"" + url + "\" " + why);
  };
  if (url.size() > 2048) throw refuse("is longer than 2048 characters");
  if (std::any_of(url.begin(), url.end(), [](unsigned char c) { return c <= 0x20 || c == 0x7f; }))
    throw refuse("holds a space or a control character");
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const std::exception&) {
    throw refuse("is not a URL");
  }
  if (uri.getScheme() != "https" && !(allowInsecure && uri.getScheme() == "http"))
    throw refuse("is not an https:// URL");
  if (!uri.getUserInfo().empty()) throw refuse("carries user-info, which is not allowed");
  if (uri.getHost().empty()) throw refuse("names no host");
  if (!uri.getFragment().empty()) throw refuse("has a fragment");
  if (allowInsecure) return url;
  // An address literal is checked now; a name is resolved and checked at each attempt (no DNS
  // lookup runs inside the activity's transaction).
  std::string host = signet::egress::hostOf(uri.getHost());
  if (auto literal = signet::egress::parseAddress(host)) {
    auto range = signet::egress::classify(*literal);
    if (range != signet::egress::Range::kPublic)
      throw refuse("names " + signet::egress::toString(*literal) +
                   ", which is not a public address (" + signet::egress::describe(range) + ")");
    return url;
  }
  std::string lower = signet::asciiLower(host);
  if (lower == "localhost" || lower.ends_with(".localhost") ||
      lower == "metadata.google.internal" || lower == "metadata")
    throw refuse("names a local or metadata host");
  return url;
}

}  // namespace webhooks
