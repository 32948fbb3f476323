#include "server/router.hpp"

#include <Poco/Logger.h>

#include "activity/handler_context.hpp"
#include "observability/scrape.hpp"
#include "server/console_assets.hpp"
#include "store/sql_connection.hpp"

namespace signet {

namespace {
HttpResult jsonResult(int status, const json::Object& body) {
  HttpResult r;
  r.status = status;
  r.body = json::stringify(body);
  return r;
}

// 413, naming the size and the limit.
HttpResult bodyTooLarge(const HttpRequestData& request, size_t limit) {
  HttpResult r = errorResult(
      invalidArgument("request body of " + std::to_string(request.declaredLength) +
                      " bytes exceeds the limit of " + std::to_string(limit) + " bytes"));
  r.status = 413;
  return r;
}

bool startsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
}  // namespace

HttpResult errorResult(const Error& error) {
  json::Object body = json::object();
  body->set("code", static_cast<int>(error.code()));
  body->set("message", std::string(error.what()));
  json::Array details = json::array();
  if (!error.detailCode().empty()) {
    json::Object d = json::object();
    d->set("@type", "type.googleapis.com/errors.v1.TurnkeyErrorDetail");
    d->set("turnkeyErrorCode", error.detailCode());
    details->add(d);
  }
  body->set("details", details);
  HttpResult r = jsonResult(httpStatusFor(error.code()), body);
  // The error's own wait when it knows one (a rate limit's bucket, an issuer's failure hold);
  // else 1 s: every bucket refills at one request a second or faster, and what is unavailable
  // (the store, an outbound call's bounds) is worth asking again about as soon.
  if (error.code() == Code::kResourceExhausted || error.code() == Code::kUnavailable)
    r.headers.emplace_back("Retry-After", retryAfterOf(error));
  return r;
}

namespace {
// What the gateway publishes about itself, unauthenticated: its keys (signet.json, for the SDKs'
// override arguments) and an OpenID Provider configuration (OpenID Connect Discovery 1.0 §3) with
// its JWKS (RFC 7517), so that the ID tokens oauth2_authenticate signs verify like any issuer's.
std::optional<HttpResult> wellKnown(const Gateway& gateway, const std::string& path) {
  const GatewayFacts& facts = gateway.catalog().services().gateway;
  json::Object o = json::object();
  if (path == "/.well-known/signet.json") {
    o->set("signerPublicKey", gateway.signerPublicKey());
    o->set("clientSecretEncryptionPublicKey", facts.clientSecretPublicKey);
    o->set("onRampEncryptionPublicKey", facts.onRampSecretPublicKey);
    o->set("oidcIssuer", facts.publicUrl);
    o->set("version", "0.1.0");
    return jsonResult(200, o);
  }
  if (path == "/.well-known/openid-configuration") {
    o->set("issuer", facts.publicUrl);
    o->set("jwks_uri", facts.publicUrl + "/.well-known/jwks.json");
    o->set("id_token_signing_alg_values_supported", json::stringArray({"ES256"}));
    o->set("subject_types_supported", json::stringArray({"public"}));
    o->set("response_types_supported", json::stringArray({"id_token"}));
    o->set("claims_supported", json::stringArray({"iss", "sub", "aud", "exp", "iat", "nonce",
                                                  "encrypted_bearer_token"}));
  } else if (path == "/.well-known/jwks.json") {
    Bytes point = *fromHex(facts.oidcIssuerPublicKey);
    json::Object key = json::object();
    key->set("kty", "EC");
    key->set("crv", "P-256");
    key->set("use", "sig");
    key->set("alg", "ES256");
    key->set("kid", facts.oidcIssuerKeyId);
    key->set("x", base64UrlEncode(Bytes(point.begin() + 1, point.begin() + 33)));
    key->set("y", base64UrlEncode(Bytes(point.begin() + 33, point.end())));
    json::Array keys = json::array();
    keys->add(key);
    o->set("keys", keys);
  } else {
    return std::nullopt;
  }
  HttpResult r = jsonResult(200, o);
  r.headers.emplace_back("Cache-Control", "public, max-age=3600");
  return r;
}
// The context of a detached route: what a RequestContext offers without the store.
class DetachedContext : public RequestContext {
 public:
  explicit DetachedContext(Gateway& gateway) : gateway_(gateway) {}
  const std::string& organizationId() const override { return none_; }
  const Caller& caller() const override { return nobody_; }
  Db& db() override { throw refusal("the store"); }
  Keyring& keyring() override { throw refusal("the keyring"); }
  int64_t nowMs() const override { return gateway_.nowMs(); }
  std::string newId() override { return crypto::uuidV4(); }
  const std::string& signerPublicKey() const override { return gateway_.signerPublicKey(); }
  const Services& services() const override { return gateway_.catalog().services(); }
  RequestCache& requestCache() override { return cache_; }
  crypto::EcdsaSignature signWithGatewayKey(const crypto::Digest&) override {
    throw refusal("the gateway's keys");
  }
  crypto::EcdsaSignature signAsOidcIssuer(const crypto::Digest&) override {
    throw refusal("the gateway's keys");
  }
  crypto::SecretBytes openClientSecret(const std::string&, const std::string&) override {
    throw refusal("the gateway's keys");
  }
  crypto::SecretBytes openOnRampSecret(const std::string&, const std::string&) override {
    throw refusal("the gateway's keys");
  }

 private:
  static Error refusal(const std::string& what) {
    return internalError("a detached route has no access to " + what);
  }
  Gateway& gateway_;
  std::string none_;
  Caller nobody_;
  RequestCache cache_;
};

}  // namespace

Router::Router(Gateway& gateway, const ListenerSpec* listener, std::string listenerModule)
    : gateway_(gateway),
      authorizer_(gateway),
      authenticator_(gateway.config(), gateway.signerPublicKey(), gateway.organizationRates(),
                     gateway.serviceRates(), gateway.catalog().services(),
                     gateway.directoryCache()),
      pipeline_(gateway, authorizer_, authenticator_),
      listener_(listener),
      listenerModule_(std::move(listenerModule)) {}

HttpResult Router::runRoute(const RouteSpec& route, const HttpRequestData& request,
                            const std::string& subpath) {
  if (request.bodyTooLarge) return bodyTooLarge(request, gateway_.config().maxBodyBytes);
  HttpCall call{request.method,  request.path, subpath,     request.query,
                request.headers, request.body, request.peer};
  HttpReply reply;
  // A route's writes commit together or not at all, like an activity's.
  if (route.access == RouteAccess::kDetached) {
    DetachedContext ctx(gateway_);
    reply = route.handler(ctx, call);
  } else if (route.access == RouteAccess::kPublic) {
    gateway_.database().transaction([&](Db& db) {
      Caller nobody;
      HandlerContext ctx(gateway_, db, nobody, "");
      reply = route.handler(ctx, call);
    });
  } else {
    PresentedStamp stamp = authenticator_.present(request);
    auto body = json::parseObject(request.body, "request body");
    std::string organizationId = json::requireUuid(body, "organizationId", "");
    gateway_.database().transaction([&](Db& db) {
      auto who = authenticator_.resolve(db, stamp, organizationId, gateway_.nowMs(),
                                        /*apiKeysDownward=*/false, Authenticator::Reads::kStore);
      HandlerContext ctx(gateway_, db, who.caller, who.organizationId);
      reply = route.handler(ctx, call);
    });
  }
  HttpResult result;
  // A listener route that answers its own preflight decides its CORS headers, and leaves them
  // out for origins it refuses (the auth proxy's allowed origins).
  if (listener_)
    for (const auto& r : listener_->routes)
      result.ownCors |= r.method == "OPTIONS" && r.path == route.path;
  result.status = reply.status;
  result.body = std::move(reply.body);
  result.headers = std::move(reply.headers);
  result.contentType = reply.contentType;
  return result;
}

json::Object Router::runQuery(const std::string& op, const HttpRequestData& request,
                              const PresentedStamp& stamp, std::string& organizationIdOut) {
  const QuerySpec* spec = gateway_.catalog().query(op);
  if (!spec) throw gateway_.catalog().unservedPath("query", op);
  auto body = json::parseObject(request.body, "request body");
  std::string organizationId = json::requireUuid(body, "organizationId", "");
  organizationIdOut = organizationId;
  json::Object result;
  gateway_.database().read([&](Db& db) {
    DirectoryView directory(&gateway_.directoryCache(), db);
    auto who = authenticator_.resolve(directory, stamp, organizationId, gateway_.nowMs(),
                                      /*apiKeysDownward=*/op == "whoami");
    HandlerContext ctx(gateway_, db, who.caller, who.organizationId);
    ctx.readDirectoryThrough(&directory);
    result = spec->handler(ctx, body);
  });
  return result;
}

// What the main listener serves, first match wins. `method` empty: any (the entry answers a
// wrong one itself: the API's 405). `bodyText`: the body must hold no NUL in a string, since
// what it names is stored or compared as text (plugin routes and discovery documents judge
// their own bodies). `served` says whether the rest of the path names something this gateway
// serves, for the metrics label: the path, or "unmatched", so that what clients send cannot
// grow the label set; `label`, when set, is the one label of the whole entry.
const Router::Entry Router::kEntries[] = {
    // clang-format off
    // path                    match           method  bodyText serve                    served                 label
    {"/plugins/",              Match::kPrefix, "",     false, &Router::pluginRoute,    &Router::servesPluginRoute},
    {"/public/v1/discovery/",  Match::kPrefix, "",     false, &Router::discoveryRoute, &Router::servesRootRoute},
    {"/metrics",               Match::kExact,  "GET",  true,  &Router::metrics,        &Router::servesAlways},
    {"/console",               Match::kExact,  "GET",  true,  &Router::console,        &Router::servesAlways, "/console/"},
    {"/console/",              Match::kPrefix, "GET",  true,  &Router::console,        &Router::servesAlways, "/console/"},
    {"/healthz",               Match::kExact,  "GET",  true,  &Router::health,         &Router::servesAlways},
    {"/.well-known/",          Match::kPrefix, "GET",  true,  &Router::wellKnownRoute, &Router::servesWellKnown},
    {"/public/v1/query/",      Match::kPrefix, "",     true,  &Router::query,          &Router::servesQuery},
    {"/public/v1/submit/",     Match::kPrefix, "",     true,  &Router::submit,         &Router::servesSubmit},
    // clang-format on
};

const Router::Entry* Router::entryFor(const std::string& path, const std::string* method) {
  for (const Entry& e : kEntries) {
    bool pathMatches = e.match == Match::kExact ? path == e.path : startsWith(path, e.path);
    if (pathMatches && (!method || e.method.empty() || e.method == *method)) return &e;
  }
  return nullptr;
}

Handled Router::dispatch(const HttpRequestData& request) {
  const std::string& path = request.path;
  if (listener_) {  // a plugin's own listener serves its routes and nothing else
    for (const auto& route : listener_->routes)
      if (route.method == request.method && route.path == path)
        return runRoute(route, request, path);
    throw notFound("unknown path " + request.method + " " + path + " on listener '" +
                   listener_->name + "' of plugin '" + listenerModule_ + "'");
  }
  const Entry* entry = entryFor(path, &request.method);
  if (!entry) throw notFound("unknown path " + path);
  if (entry->bodyText)
    if (auto field = json::fieldHoldingNul(request.body))
      throw invalidArgument("invalid field " + *field +
                            ": it holds a NUL character, which cannot be stored as it was sent");
  return (this->*entry->serve)(request, path.substr(entry->path.size()));
}

namespace {
// What follows /plugins/: the plugin's name, then its route's path ("/" when there is none).
std::pair<std::string, std::string> pluginAndRoute(const std::string& rest) {
  size_t slash = rest.find('/');
  return {rest.substr(0, slash), slash == std::string::npos ? "/" : rest.substr(slash)};
}
}  // namespace

Handled Router::pluginRoute(const HttpRequestData& request, const std::string& rest) {
  auto [module, subpath] = pluginAndRoute(rest);
  if (const RouteSpec* route = gateway_.catalog().route(module, request.method, subpath))
    return runRoute(*route, request, subpath);
  throw gateway_.catalog().unservedRoute(module, request.method, request.path);
}

Handled Router::discoveryRoute(const HttpRequestData& request, const std::string&) {
  // Discovery documents a module serves at the API's own paths (RouteSpec::atRoot).
  if (const RouteSpec* route = gateway_.catalog().rootRoute(request.method, request.path))
    return runRoute(*route, request, request.path);
  throw notFound("unknown path " + request.method + " " + request.path);
}

Handled Router::console(const HttpRequestData& request, const std::string&) {
  auto etag = request.headers.find("if-none-match");
  if (auto asset = consoleAsset(request.path, etag == request.headers.end() ? "" : etag->second))
    return *asset;
  throw notFound("unknown path " + request.path + ": the console has no such file");
}

Handled Router::health(const HttpRequestData&, const std::string&) {
  json::Object o = json::object();
  o->set("status", "ok");
  return jsonResult(200, o);
}

Handled Router::wellKnownRoute(const HttpRequestData& request, const std::string&) {
  if (auto document = wellKnown(gateway_, request.path)) return *document;
  throw notFound("unknown path " + request.path);
}

std::optional<HttpResult> Router::refusedApiCall(const HttpRequestData& request, size_t sizeLimit,
                                                 const char* limitName) const {
  if (request.method != "POST") {
    HttpResult r =
        errorResult(Error(Code::kUnimplemented, "method " + request.method + " is not allowed on " +
                                                    request.path + "; use POST"));
    r.status = 405;
    r.headers.emplace_back("Allow", "POST, OPTIONS");
    return r;
  }
  if (request.bodyTooLarge) return bodyTooLarge(request, gateway_.config().maxBodyBytes);
  if (limitName && request.body.size() > sizeLimit) {
    HttpResult r = errorResult(invalidArgument(
        "activity request of " + std::to_string(request.body.size()) + " bytes exceeds " +
        limitName + ", " + std::to_string(sizeLimit) +
        " bytes: an activity is stored with its request, so it is held to less than other "
        "requests"));
    r.status = 413;
    return r;
  }
  return std::nullopt;
}

Handled Router::query(const HttpRequestData& request, const std::string& op) {
  if (auto refused = refusedApiCall(request, 0, nullptr)) return *refused;
  PresentedStamp stamp = authenticator_.present(request);
  std::string organizationId;
  HttpResult result = jsonResult(200, runQuery(op, request, stamp, organizationId));
  result.log.organizationId = std::move(organizationId);
  return result;
}

Handled Router::submit(const HttpRequestData& request, const std::string& path) {
  if (auto refused = refusedApiCall(request, gateway_.config().server.maxActivityBytes,
                                    "limits.maxActivityBytes"))
    return *refused;
  PresentedStamp stamp = authenticator_.present(request);
  const uint64_t eventsBefore = gateway_.activityEventsWritten();
  auto started = pipeline_.start(path, stamp);
  if (auto* done = std::get_if<ActivityPipeline::Submitted>(&started))
    return submitted(std::move(*done), eventsBefore);
  auto& deferred = std::get<ActivityPipeline::Deferred>(started);
  return PendingAnswer{std::move(deferred.write),
                       [this, eventsBefore, answer = std::move(deferred.answer)](
                           std::exception_ptr failure) -> HttpResult {
                         if (failure) std::rethrow_exception(failure);
                         return submitted(answer(), eventsBefore);
                       }};
}

HttpResult Router::submitted(ActivityPipeline::Submitted submitted, uint64_t eventsBefore) {
  // Its status changes go to the modules now, not at the next poll; a submission that wrote
  // no event (no module wanted its organization's) leaves the dispatcher asleep.
  if (gateway_.activityEventsWritten() != eventsBefore) gateway_.wakeBackground();
  HttpResult result = jsonResult(200, submitted.response);
  result.headers = std::move(submitted.headers);
  if (auto activity = submitted.response->getObject("activity")) {
    result.log.organizationId = activity->optValue<std::string>("organizationId", "");
    result.log.activityType = activity->optValue<std::string>("type", "");
    result.log.activityStatus = activity->optValue<std::string>("status", "");
  }
  return result;
}

bool Router::servesAlways(const std::string&, const std::string&, const std::string&) const {
  return true;
}

bool Router::servesPluginRoute(const std::string& method, const std::string&,
                               const std::string& rest) const {
  auto [module, subpath] = pluginAndRoute(rest);
  return gateway_.catalog().route(module, method, subpath) != nullptr;
}

bool Router::servesRootRoute(const std::string& method, const std::string& path,
                             const std::string&) const {
  return gateway_.catalog().rootRoute(method, path) != nullptr;
}

bool Router::servesWellKnown(const std::string&, const std::string& path,
                             const std::string&) const {
  return wellKnown(gateway_, path).has_value();
}

bool Router::servesQuery(const std::string&, const std::string&, const std::string& op) const {
  return gateway_.catalog().query(op) != nullptr;
}

bool Router::servesSubmit(const std::string&, const std::string&,
                          const std::string& submitPath) const {
  return !gateway_.catalog().activitiesAt(submitPath).empty();
}

namespace {
// The client's X-Request-Id when it is one a log line can carry as it is (1 to 128 of
// [A-Za-z0-9._:-]); otherwise a fresh one.
std::string requestIdOf(const HttpRequestData& request) {
  auto it = request.headers.find("x-request-id");
  if (it != request.headers.end() && !it->second.empty() && it->second.size() <= 128 &&
      std::all_of(it->second.begin(), it->second.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
               c == '-';
      }))
    return it->second;
  return crypto::uuidV4();
}
}  // namespace

std::string Router::routeLabel(const HttpRequestData& request) const {
  const std::string& path = request.path;
  const std::string method = request.method == "HEAD" ? "GET" : request.method;
  if (listener_) {
    for (const auto& route : listener_->routes)
      if (route.path == path) return path;
    return "unmatched";
  }
  const Entry* entry = entryFor(path, nullptr);  // by path alone: a wrong method is labelled too
  if (!entry || !(this->*entry->served)(method, path, path.substr(entry->path.size())))
    return "unmatched";
  return entry->label.empty() ? path : std::string(entry->label);
}

Handled Router::metrics(const HttpRequestData& request, const std::string&) {
  // With an address of its own (metrics.listen) the main listener does not serve it.
  if (!gateway_.config().metricsListen.empty())
    throw notFound("unknown path /metrics: metrics are served on " +
                   gateway_.config().metricsListen + " (metrics.listen)");
  if (!metricsAllowedFrom(request.peer)) {
    HttpResult r = errorResult(
        Error(Code::kPermissionDenied,
              "metrics are served to loopback clients only on this listener, "
              "not to " +
                  request.peer + "; give them an address of their own with metrics.listen"));
    r.status = 403;
    return r;
  }
  HttpResult r;
  r.status = 200;
  r.contentType = "text/plain; version=0.0.4";
  r.body = scrapeMetrics(gateway_);
  return r;
}

HttpResult Router::handle(const HttpRequestData& request) {
  Handled handled = start(request);
  if (!handled.pending) return std::move(handled.result);
  std::exception_ptr failure;
  try {
    gateway_.database().transaction(handled.pending->write);
  } catch (...) {
    failure = std::current_exception();
  }
  return handled.pending->answer(failure);
}

Handled Router::start(const HttpRequestData& request) {
  Handled handled = route(request);
  std::string label = routeLabel(request);
  std::string requestId = requestIdOf(request);
  if (!handled.pending) {
    finish(handled.result, label, requestId);
    return handled;
  }
  // Labelled and refused as any answer is, once the commit gives it; the request itself may be
  // gone by then, so what that needs of it is kept here.
  handled.pending->answer = [this, answer = std::move(handled.pending->answer),
                             method = request.method, path = request.path, label,
                             requestId](std::exception_ptr failure) {
    Handled h = answerOrRefuse(method, path, [&]() -> Handled { return answer(failure); });
    finish(h.result, label, requestId);
    return std::move(h.result);
  };
  return handled;
}

void Router::finish(HttpResult& result, const std::string& label,
                    const std::string& requestId) const {
  addCors(result);
  result.log.route = label;
  result.log.requestId = requestId;
  result.headers.emplace_back("X-Request-Id", requestId);
}

Handled Router::route(const HttpRequestData& request) {
  // Preflights get the gateway's CORS answer, unless a plugin listener answers them itself (the
  // auth proxy checks the origin against its own configuration).
  bool listenerAnswers = false;
  if (listener_ && request.method == "OPTIONS")
    for (const auto& route : listener_->routes)
      listenerAnswers |= route.method == "OPTIONS" && route.path == request.path;
  if (request.method == "OPTIONS" && !listenerAnswers) {
    HttpResult preflight;
    preflight.status = 204;
    return preflight;
  }
  return answerOrRefuse(request.method, request.path, [&]() -> Handled {
    if (request.method != "HEAD") return dispatch(request);
    HttpRequestData get = request;  // what GET answers, without the body (the server drops it)
    get.method = "GET";
    return dispatch(get);
  });
}

Handled Router::answerOrRefuse(const std::string& method, const std::string& path,
                               const std::function<Handled()>& run) {
  try {
    return run();
  } catch (const Error& e) {
    return errorResult(e);
  } catch (const StoreUnavailable& e) {
    // The store failed over, restarted or is out of reach: nothing of this request was
    // committed (a lost COMMIT aside, which a retried body finds by its fingerprint), so the
    // client may send it again; SDKs retry a 503, not a 500.
    Poco::Logger::get("signet.http")
        .warning("%s %s: the store is unavailable: %s", method, path, std::string(e.what()));
    return errorResult(
        Error(Code::kUnavailable, "the store is unavailable for the moment; try again"));
  } catch (const std::exception& e) {
    Poco::Logger::get("signet.http").error("%s %s: %s", method, path, std::string(e.what()));
    return errorResult(internalError("internal error"));
  } catch (...) {
    // Whatever escaped (a type that is no std::exception): the client still gets an answer.
    Poco::Logger::get("signet.http").error("%s %s: an exception of unknown type", method, path);
    return errorResult(internalError("internal error"));
  }
}

bool Router::localCall(const HttpRequestData& request) const {
  const std::string& token = gateway_.catalog().services().gateway.localCallToken;
  auto it = request.headers.find(asciiLower(kLocalCallHeader));
  return !token.empty() && it != request.headers.end() &&
         crypto::constantTimeEquals(it->second, token);
}

void Router::addCors(HttpResult& result) const {
  const std::string& origin = gateway_.config().corsAllowOrigin;
  if (result.ownCors) return;
  if (!origin.empty()) {
    result.headers.emplace_back("Access-Control-Allow-Origin", origin);
    result.headers.emplace_back("Access-Control-Allow-Methods", "POST, GET, OPTIONS");
    result.headers.emplace_back(
        "Access-Control-Allow-Headers",
        "Content-Type, X-Stamp, X-Stamp-WebAuthn, X-Stamp-Attested, X-Client-Version, "
        "X-Auth-Proxy-Config-ID, X-Captcha-Token");
    result.headers.emplace_back("Access-Control-Max-Age", "600");
  }
}

}  // namespace signet
