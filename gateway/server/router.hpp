// Routes one HTTP request to its handler and turns every outcome into a response: JSON in
// and out, `Content-Type: application/json` exactly, errors as {code, message, details} with
// the gRPC code mapped to an HTTP status. Independent of the HTTP library, so it is tested
// directly as well as through the server.
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "activity/pipeline.hpp"
#include "policy/engine.hpp"
#include "server/http_request.hpp"

namespace signet {

// What the request log says of a request beyond its line and status: never a body, a stamp or
// a secret.
struct RequestLogFields {
  std::string requestId;       // the client's X-Request-Id when usable, else one made here
  std::string organizationId;  // the organization the request targeted, when it named one
  std::string activityType;    // submissions
  std::string activityStatus;
  // The route the request matched, as metrics label it: a path the catalog serves, or
  // "unmatched", so that what clients send cannot grow the label set.
  std::string route;
};

struct HttpResult {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string contentType = "application/json";  // plugin routes may answer otherwise
  RequestLogFields log;
  bool ownCors = false;  // the route set its CORS headers (or left them out) itself
};

// An answer that waits for its write to commit (ActivityPipeline::Deferred): `write` joins a
// write batch, and `answer` makes the result once that batch ended, given what failed (null
// when the write committed). Between the two, nothing of the request holds a thread.
struct PendingAnswer {
  std::function<void(Db&)> write;
  std::function<HttpResult(std::exception_ptr)> answer;
};

// What a route gives: its result now, or the write its result waits for.
struct Handled {
  Handled(HttpResult r) : result(std::move(r)) {}  // NOLINT: a route's usual answer
  Handled(PendingAnswer p) : pending(std::move(p)) {}
  HttpResult result;
  std::optional<PendingAnswer> pending;
};

class Router {
 public:
  // The main listener's router; with `listener`, the router of that plugin listener, which
  // serves its routes and nothing else.
  explicit Router(Gateway& gateway, const ListenerSpec* listener = nullptr,
                  std::string listenerModule = {});
  // The answer, labelled with a request id (the client's X-Request-Id, echoed, or a new one)
  // and what the request log needs.
  HttpResult handle(const HttpRequestData& request);
  // The same, except that an answer waiting for its write's commit comes back as that write
  // (Handled::pending) for the caller to post (Database::transactionThen): the HTTP server's
  // way, so that no thread sleeps on a commit.
  Handled start(const HttpRequestData& request);
  // The CORS headers every answer carries, the front end's own refusals (429, 503) included,
  // so that a browser app can read them.
  void addCors(HttpResult& result) const;
  // Whether the request is this process's own (the embedded auth proxy's, carrying
  // GatewayFacts::localCallToken): the per-address limit does not count it, since everyone the
  // proxy forwards would otherwise be one loopback client. The proxy limits them itself.
  bool localCall(const HttpRequestData& request) const;

 private:
  // One row of the main listener's table (kEntries in router.cpp).
  enum class Match { kExact, kPrefix };
  struct Entry {
    std::string_view path;
    Match match;
    std::string_view method;  // empty: any
    bool bodyText;            // a NUL inside a string of the body is refused
    // Serves the request; `rest` is the path after the entry's.
    Handled (Router::*serve)(const HttpRequestData& request, const std::string& rest);
    // Whether `path` (`rest` after the entry's own) names something served to `method` (the
    // metrics label).
    bool (Router::*served)(const std::string& method, const std::string& path,
                           const std::string& rest) const;
    std::string_view label = {};  // the entry's one label, when it has one
  };
  static const Entry kEntries[];
  // The first entry whose path matches, and whose method when `method` is given.
  static const Entry* entryFor(const std::string& path, const std::string* method);

  // The request's answer before its labels and CORS headers: a preflight's, or the route's.
  Handled route(const HttpRequestData& request);
  // What `run` gives, or the error result for what it throws (logged when unexpected).
  Handled answerOrRefuse(const std::string& method, const std::string& path,
                         const std::function<Handled()>& run);
  // The CORS headers, the route's label and the request id, on every answer.
  void finish(HttpResult& result, const std::string& label, const std::string& requestId) const;
  Handled dispatch(const HttpRequestData& request);
  // The entries' handlers.
  Handled pluginRoute(const HttpRequestData& request, const std::string& rest);
  Handled discoveryRoute(const HttpRequestData& request, const std::string& rest);
  Handled metrics(const HttpRequestData& request, const std::string& rest);
  Handled console(const HttpRequestData& request, const std::string& rest);
  Handled health(const HttpRequestData& request, const std::string& rest);
  Handled wellKnownRoute(const HttpRequestData& request, const std::string& rest);
  Handled query(const HttpRequestData& request, const std::string& op);
  Handled submit(const HttpRequestData& request, const std::string& path);
  // A submission's result, and a wake-up for the modules when it wrote them events.
  HttpResult submitted(ActivityPipeline::Submitted submitted, uint64_t eventsBefore);
  // The API's refusals before its stamp is read: a method other than POST (405), a body over
  // limits.maxBodyBytes, or over `sizeLimit` when `limitName` names one (413).
  std::optional<HttpResult> refusedApiCall(const HttpRequestData& request, size_t sizeLimit,
                                           const char* limitName) const;
  bool servesAlways(const std::string& method, const std::string& path,
                    const std::string& rest) const;
  bool servesPluginRoute(const std::string& method, const std::string& path,
                         const std::string& rest) const;
  bool servesRootRoute(const std::string& method, const std::string& path,
                       const std::string& rest) const;
  bool servesWellKnown(const std::string& method, const std::string& path,
                       const std::string& rest) const;
  bool servesQuery(const std::string& method, const std::string& path, const std::string& op) const;
  bool servesSubmit(const std::string& method, const std::string& path,
                    const std::string& submitPath) const;
  HttpResult runRoute(const RouteSpec& route, const HttpRequestData& request,
                      const std::string& subpath);
  json::Object runQuery(const std::string& op, const HttpRequestData& request,
                        const PresentedStamp& stamp, std::string& organizationIdOut);
  std::string routeLabel(const HttpRequestData& request) const;

  Gateway& gateway_;
  policy::PolicyEngine authorizer_;
  // The one authenticate step of this router: queries, stamped plugin routes and the
  // pipeline's submissions.
  Authenticator authenticator_;
  ActivityPipeline pipeline_;
  const ListenerSpec* listener_;
  std::string listenerModule_;
};

HttpResult errorResult(const Error& error);

}  // namespace signet
