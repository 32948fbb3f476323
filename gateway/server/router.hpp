// Routes one HTTP request to its handler and turns every outcome into a response: JSON in
// and out, `Content-Type: application/json` exactly, errors as {code, message, details} with
// the gRPC code mapped to an HTTP status. Independent of the HTTP library, so it is tested
// directly as well as through the server.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "activity/pipeline.hpp"
#include "policy/engine.hpp"

namespace signet {

struct HttpRequestData {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  bool bodyTooLarge = false;  // the server stopped reading at the limit
  size_t declaredLength = 0;
};

struct HttpResult {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class Router {
 public:
  explicit Router(Gateway& gateway);
  HttpResult handle(const HttpRequestData& request);

 private:
  HttpResult dispatch(const HttpRequestData& request);
  json::Object runQuery(const std::string& op, const HttpRequestData& request,
                        const StampHeaders& headers,
                        const std::optional<VerifiedApiKeyStamp>& apiKey);
  StampHeaders stampHeaders(const HttpRequestData& request) const;

  Gateway& gateway_;
  policy::PolicyEngine authorizer_;
  ActivityPipeline pipeline_;
  CredentialResolver resolver_;
};

HttpResult errorResult(const Error& error);

}  // namespace signet
