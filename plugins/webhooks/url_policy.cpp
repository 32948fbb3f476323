#include "url_policy.hpp"

#include <Poco/URI.h>

#include "signet/encoding.hpp"
#include "signet/error.hpp"

namespace webhooks {

namespace {
// Resolving a name at registration is bounded like any outbound call.
constexpr int kResolveSeconds = 5;

std::string hostOf(const Poco::URI& uri) {
  std::string host = uri.getHost();
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host;
}
}  // namespace

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
  if (url.size() > 2048) throw refuse("is longer than 2048 characters");
  if (allowInsecure) return url;
  std::string host = hostOf(uri);
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
  try {
    signet::egress::resolve(host, uri.getPort(), deliveryRules(false, kResolveSeconds));
  } catch (const signet::Error& e) {
    if (e.detailCode() == signet::egress::kRefused)
      throw refuse("resolves to an address that is not a public address");
    throw refuse("does not resolve to an address");
  }
  return url;
}

}  // namespace webhooks
