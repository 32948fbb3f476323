// One HTTP exchange with a peer a plugin trusts only as far as TLS lets it (an OIDC issuer, an
// OAuth 2.0 token endpoint, an on-ramp provider's API): HTTPS checked against the system CA store,
// plain HTTP only where the operator allowed it, a deadline for the whole exchange (a peer that
// trickles its answer cannot stretch it), and a bounded answer.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace signet::http {

struct HttpExchange {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string contentType;
  std::string body;
};

struct HttpAnswer {
  int status = 0;
  std::string body;
  std::string cacheControl;
};

inline constexpr size_t kMaxAnswerBytes = 1 << 20;

// Throws signet::Error (kUnavailable) naming `peer` and the URL when the peer cannot be reached,
// does not answer before `deadline`, or answers more than kMaxAnswerBytes. `allowHttp`: whether
// an http:// URL may be used; an https:// one always may. `caFile`: an extra CA, may be empty.
HttpAnswer exchange(const HttpExchange& request, const std::string& peer,
                    std::chrono::steady_clock::time_point deadline, bool allowHttp,
                    const std::string& caFile = "");

}  // namespace signet::http
