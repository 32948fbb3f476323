#include "oidc_keys.hpp"

#include <algorithm>
#include <chrono>

#include "signet/error.hpp"
#include "signet/http_fetch.hpp"
#include "signet/json.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr size_t kMaxIssuers = 256;  // distinct issuers kept; the oldest goes first

bool insecureAllowed(const OidcSettings& s, const std::string& issuer) {
  return std::find(s.insecureIssuers.begin(), s.insecureIssuers.end(), issuer) !=
         s.insecureIssuers.end();
}

// Cache-Control max-age in seconds, or nullopt.
std::optional<int64_t> maxAge(const std::string& cacheControl) {
  auto at = cacheControl.find("max-age=");
  if (at == std::string::npos) return std::nullopt;
  int64_t v = 0;
  size_t i = at + 8, digits = 0;
  for (; i < cacheControl.size() && std::isdigit(static_cast<unsigned char>(cacheControl[i])) &&
         digits < 10;
       ++i, ++digits)
    v = v * 10 + (cacheControl[i] - '0');
  return digits ? std::optional<int64_t>(v) : std::nullopt;
}

Bytes b64(const json::Object& k, const std::string& name, const std::string& what) {
  auto text = k->optValue<std::string>(name, "");
  auto raw = base64Decode(text);
  if (text.empty() || !raw)
    throw Error(Code::kUnavailable, what + ": key field " + name + " is not base64url");
  return *raw;
}

json::Object answerJson(const http::HttpAnswer& a, const std::string& what) {
  if (a.status != 200)
    throw Error(Code::kUnavailable, what + " answered HTTP " + std::to_string(a.status));
  try {
    return json::parseObject(a.body, what);
  } catch (const Error&) {
    throw Error(Code::kUnavailable, what + " did not answer a JSON object");
  }
}
}  // namespace

std::shared_ptr<OidcKeyCache::Entry> OidcKeyCache::entryOf(const std::string& issuer) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(issuer);
  if (it != entries_.end()) return it->second;
  if (entries_.size() >= kMaxIssuers) entries_.erase(entries_.begin());
  return entries_[issuer] = std::make_shared<Entry>();
}

std::optional<Jwk> OidcKeyCache::lookup(Entry& e, const std::string& kid, int64_t nowMs,
                                        bool& stale) {
  std::lock_guard<std::mutex> lock(mutex_);
  stale = !e.fetched || nowMs >= e.expiresAtMs;
  if (kid.empty()) {
    if (e.keys.size() == 1) return e.keys.begin()->second;
    return std::nullopt;
  }
  auto it = e.keys.find(kid);
  return it == e.keys.end() ? std::nullopt : std::optional<Jwk>(it->second);
}

std::optional<Jwk> OidcKeyCache::key(const std::string& issuer, const std::string& kid,
                                     int64_t nowMs, bool mayFetch) {
  auto entry = entryOf(issuer);
  bool stale = false;
  auto found = lookup(*entry, kid, nowMs, stale);
  if (found && !stale) return found;
  if (!mayFetch) {
    if (stale)
      throw Error(Code::kUnavailable, "the keys of OIDC issuer " + issuer +
                                          " are not loaded (they are fetched before the "
                                          "activity runs; submit it again)");
    return std::nullopt;
  }
  std::lock_guard<std::mutex> fetching(entry->fetching);
  // Another request may have fetched while this one waited.
  found = lookup(*entry, kid, nowMs, stale);
  if (found && !stale) return found;
  int64_t last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last = entry->fetched ? entry->fetchedAtMs : INT64_MIN / 2;
  }
  if (!stale && nowMs - last < int64_t{settings_.refreshIntervalSeconds} * 1000)
    return std::nullopt;  // an unknown kid, and the keys were refreshed moments ago
  fetch(issuer, *entry, nowMs);
  return lookup(*entry, kid, nowMs, stale);
}

void OidcKeyCache::fetch(const std::string& issuer, Entry& e, int64_t nowMs) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(settings_.timeoutSeconds);
  bool plainHttp = insecureAllowed(settings_, issuer);
  std::string base = issuer;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::string what = "OIDC issuer " + issuer + " discovery";
  auto discovery = answerJson(http::exchange({.url = base + "/.well-known/openid-configuration"},
                                             what, deadline, plainHttp, settings_.caFile),
                              what);
  // OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
  if (discovery->optValue<std::string>("issuer", "") != issuer)
    throw Error(Code::kUnavailable, what + " names issuer \"" +
                                        discovery->optValue<std::string>("issuer", "") +
                                        "\", not " + issuer);
  std::string jwksUri = discovery->optValue<std::string>("jwks_uri", "");
  if (jwksUri.empty()) throw Error(Code::kUnavailable, what + " has no jwks_uri");
  what = "OIDC issuer " + issuer + " keys";
  auto answer = http::exchange({.url = jwksUri}, what, deadline, plainHttp, settings_.caFile);
  auto jwks = answerJson(answer, what);
  auto list = jwks->getArray("keys");
  if (!list) throw Error(Code::kUnavailable, what + " (" + jwksUri + ") has no keys array");
  std::map<std::string, Jwk> keys;
  for (size_t i = 0; i < list->size(); ++i) {
    auto k = list->getObject(static_cast<unsigned>(i));
    if (!k) continue;
    Jwk jwk;
    jwk.kid = k->optValue<std::string>("kid", "");
    jwk.kty = k->optValue<std::string>("kty", "");
    jwk.alg = k->optValue<std::string>("alg", "");
    if (k->optValue<std::string>("use", "sig") != "sig") continue;  // encryption keys
    if (jwk.kty == "RSA") {
      jwk.modulus = b64(k, "n", what);
      jwk.exponent = b64(k, "e", what);
    } else if (jwk.kty == "EC" && k->optValue<std::string>("crv", "") == "P-256") {
      Bytes x = b64(k, "x", what), y = b64(k, "y", what);
      if (x.size() != 32 || y.size() != 32)
        throw Error(Code::kUnavailable, what + ": a P-256 key whose x or y is not 32 bytes");
      jwk.point = {0x04};
      jwk.point.insert(jwk.point.end(), x.begin(), x.end());
      jwk.point.insert(jwk.point.end(), y.begin(), y.end());
    } else {
      continue;  // a key type no accepted algorithm uses
    }
    keys[jwk.kid] = std::move(jwk);
  }
  int64_t seconds = maxAge(answer.cacheControl).value_or(settings_.defaultCacheSeconds);
  std::lock_guard<std::mutex> lock(mutex_);
  e.keys = std::move(keys);
  e.fetched = true;
  e.fetchedAtMs = nowMs;
  e.expiresAtMs = nowMs + seconds * 1000;
}

}  // namespace sessions
