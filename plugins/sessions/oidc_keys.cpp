#include "oidc_keys.hpp"

#include <Poco/Logger.h>

#include <algorithm>
#include <chrono>

#include "signet/egress.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"

namespace sessions {

using namespace signet;

namespace {
constexpr size_t kMaxIssuers = 256;  // distinct issuers kept; past it, an idle one goes

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

json::Object answerJson(const egress::Answer& a, const std::string& what) {
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
  auto it = entries_.find(issuer);
  if (it != entries_.end()) return it->second;
  // Only trusted issuers get here, so the map stays small; the bound is a backstop.
  if (entries_.size() >= kMaxIssuers) {
    auto idle = std::find_if(entries_.begin(), entries_.end(),
                             [](const auto& e) { return !e.second->fetching; });
    if (idle != entries_.end()) entries_.erase(idle);
  }
  return entries_[issuer] = std::make_shared<Entry>();
}

std::optional<Jwk> OidcKeyCache::lookup(Entry& e, const std::string& kid) const {
  if (kid.empty()) {
    if (e.keys.size() == 1) return e.keys.begin()->second;
    return std::nullopt;
  }
  auto it = e.keys.find(kid);
  return it == e.keys.end() ? std::nullopt : std::optional<Jwk>(it->second);
}

std::optional<Jwk> OidcKeyCache::key(const std::string& issuer, const std::string& kid,
                                     int64_t nowMs, bool mayFetch) {
  std::unique_lock lock(mutex_);
  auto entry = entryOf(issuer);
  Entry& e = *entry;
  auto found = lookup(e, kid);
  if (found && !stale(e, nowMs)) return found;
  if (!mayFetch) {
    if (stale(e, nowMs))
      throw Error(Code::kUnavailable, "the keys of OIDC issuer " + issuer +
                                          " are not loaded (they are fetched before the "
                                          "activity runs; submit it again)");
    return std::nullopt;
  }
  if (!stale(e, nowMs) && nowMs - e.fetchedAtMs < int64_t{settings_.refreshIntervalSeconds} * 1000)
    return std::nullopt;  // an unknown kid, and the keys were refreshed moments ago
  auto now = std::chrono::steady_clock::now();
  if (e.failedUntil > now) {
    if (found) return found;  // expired keys beat none while the issuer is down
    throw issuerKeysUnavailable(issuer, e.failedUntil - now);
  }
  // A fetch under way for another request: rather than hold this request's thread for it, the
  // client is asked to come back (the keys are cached for an hour or more once fetched).
  if (e.fetching) {
    if (found) return found;
    throw Error(Code::kUnavailable,
                "the keys of OIDC issuer " + issuer +
                    " are being fetched for another request; try again shortly",
                egress::kBusy);
  }
  e.fetching = true;
  lock.unlock();
  std::map<std::string, Jwk> keys;
  int64_t seconds = settings_.defaultCacheSeconds;
  std::optional<Error> failed;
  try {
    keys = fetch(issuer, seconds);
  } catch (const Error& error) {
    failed = error;
  } catch (const std::exception& error) {
    failed = Error(Code::kUnavailable, issuer + ": " + error.what());
  }
  lock.lock();
  e.fetching = false;
  if (failed) {
    if (failed->detailCode() == egress::kBusy) throw *failed;  // not the issuer's fault
    // Held from when the fetch ended, however long it took.
    e.failedUntil = std::chrono::steady_clock::now() + kFailureHold;
    Poco::Logger::get("signet.oidc").warning("%s", std::string(failed->what()));
    if (found) return found;
    throw issuerKeysUnavailable(issuer, kFailureHold);
  }
  e.keys = std::move(keys);
  e.fetched = true;
  e.fetchedAtMs = nowMs;
  e.failedUntil = {};
  e.expiresAtMs = nowMs + seconds * 1000;
  return lookup(e, kid);
}

std::map<std::string, Jwk> OidcKeyCache::fetch(const std::string& issuer, int64_t& cacheSeconds) {
  // An issuer the operator listed as insecure may be reached on any address and over plain
  // HTTP; every other one only on public addresses, over HTTPS.
  bool insecure = listedIn(settings_.insecureIssuers, issuer);
  egress::Rules rules{
      .peer = "OIDC issuer " + issuer + " discovery",
      .deadline = egress::Clock::now() + std::chrono::seconds(settings_.timeoutSeconds),
      .allowHttp = insecure,
      .allowInternal = insecure,
      .caFile = settings_.caFile};
  std::string base = issuer;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::string what = rules.peer;
  auto discovery = answerJson(
      egress::exchange({.url = base + "/.well-known/openid-configuration"}, rules), what);
  // OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
  if (discovery->optValue<std::string>("issuer", "") != issuer)
    throw Error(Code::kUnavailable, what + " names issuer \"" +
                                        discovery->optValue<std::string>("issuer", "") +
                                        "\", not " + issuer);
  std::string jwksUri = discovery->optValue<std::string>("jwks_uri", "");
  if (jwksUri.empty()) throw Error(Code::kUnavailable, what + " has no jwks_uri");
  rules.peer = what = "OIDC issuer " + issuer + " keys";
  auto answer = egress::exchange({.url = jwksUri}, rules);
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
  cacheSeconds = maxAge(answer.cacheControl).value_or(settings_.defaultCacheSeconds);
  return keys;
}

Error issuerKeysUnavailable(const std::string& issuer, std::chrono::steady_clock::duration wait) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(wait).count() + 1;
  return Error(Code::kUnavailable, "issuer keys unavailable: the signing keys of OIDC issuer " +
                                       issuer + " cannot be had now; try again later")
      .retryAfter(static_cast<int>(seconds));
}

}  // namespace sessions
