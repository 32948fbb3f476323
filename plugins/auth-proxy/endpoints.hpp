// The proxy's endpoints (the auth proxy API, /v1/...): each maps its request to coordinator
// activities and queries, injecting the configuration's OTP, email and session settings.
// Sign-up and OTP/OAuth initiation act in the parent organization; logins act in the user's
// sub-organization, submitted with the parent's proxy key (the coordinator allows parent
// credentials for login activities).
#pragma once

#include <string>
#include <vector>

#include "abuse_limits.hpp"
#include "config_source.hpp"
#include "coordinator_calls.hpp"

namespace auth_proxy {

struct ProxyCall {
  const LoadedConfig& config;
  const CoordinatorCalls& coordinator;
  const signet::json::Object& body;
  const std::string& peer;  // the client: its address, or its IPv6 /64 (what limits count)
  AbuseLimits& limits;
  const LimitSettings& limitSettings;
  int64_t nowMs;
};

using Endpoint = signet::json::Object (*)(const ProxyCall&);

struct EndpointSpec {
  std::string path;  // /v1/...
  Endpoint handler;
  // The body fields it takes: the auth proxy OpenAPI document's, and the specification's
  // snake-case forms. Any other is refused naming it (checkFields), never silently dropped.
  std::vector<std::string> fields;
};

// Every endpoint of the auth proxy API, v1 and v2.
const std::vector<EndpointSpec>& endpoints();

// InvalidArgument naming the first field of `body` that `endpoint` does not take.
void checkFields(const EndpointSpec& endpoint, const signet::json::Object& body);

}  // namespace auth_proxy
