// A C++ client for the coordinator API: an API-key stamper and a client that submits
// activities (polling while they are CREATED or PENDING) and runs queries. The CLI, the
// standalone auth proxy and the tests use it. It speaks HTTP/1.1 to an http:// base URL, and
// HTTPS (TLS 1.2 or newer) to an https:// one, whose certificate must verify against the
// system's trusted CAs, or a CA file given, for the URL's host.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"
#include "signet/stamp.hpp"

namespace signet {

class Stamper {
 public:
  virtual ~Stamper() = default;
  // Header name and value for this exact body.
  virtual std::pair<std::string, std::string> stamp(std::string_view body) = 0;
};

class ApiKeyStamper : public Stamper {
 public:
  ApiKeyStamper(crypto::SecretBytes privateKey, stamp::Scheme scheme);
  static std::shared_ptr<ApiKeyStamper> fromHex(const std::string& privateKeyHex,
                                                stamp::Scheme scheme = stamp::Scheme::kP256);
  std::pair<std::string, std::string> stamp(std::string_view body) override;
  const std::string& publicKeyHex() const { return publicKey_; }

 private:
  crypto::SecretBytes privateKey_;
  stamp::Scheme scheme_;
  std::string publicKey_;
};

struct HttpResponse {
  int status = 0;
  std::string contentType;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // as received
};

// A non-2xx answer: the gRPC code and message from the body, and the HTTP status.
class RequestError : public Error {
 public:
  RequestError(int httpStatus, Code code, std::string message)
      : Error(code, std::move(message)), httpStatus_(httpStatus) {}
  int httpStatus() const { return httpStatus_; }

 private:
  int httpStatus_;
};

// TLS with the peer failed: most often a certificate that does not verify against the CAs
// trusted (the message names them), or one for another host. A peer that cannot be reached at
// all throws Poco's network exceptions instead.
class TlsError : public Error {
 public:
  explicit TlsError(std::string message) : Error(Code::kUnavailable, std::move(message)) {}
};

class Client {
 public:
  // `caFile`: a PEM file of CAs trusted besides the system's, for an https:// base URL (a
  // coordinator with a certificate of a private CA). Verification is always on.
  Client(std::string baseUrl, std::shared_ptr<Stamper> stamper, std::string caFile = "");

  HttpResponse post(const std::string& path, const std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& headers = {}) const;
  // GET `path` (GET /healthz, say): the answer whatever its status.
  HttpResponse get(const std::string& path) const;
  // POST /public/v1/query/<op>; throws RequestError on a non-2xx answer.
  json::Object query(const std::string& op, const json::Object& body) const;
  // POST /public/v1/submit/<op> with a fresh timestampMs; returns the activity, polled until
  // it leaves CREATED/PENDING (bounded).
  json::Object submit(const std::string& op, const std::string& type,
                      const std::string& organizationId, const json::Object& parameters) const;
  json::Object submitRaw(const std::string& op, const std::string& body) const;

  // Where submit's timestampMs comes from (epoch milliseconds); the system clock unless set.
  void setClock(std::function<int64_t()> clock) { clock_ = std::move(clock); }
  // Headers every request carries (the embedded auth proxy's local-call header).
  void setHeaders(std::vector<std::pair<std::string, std::string>> headers) {
    headers_ = std::move(headers);
  }

 private:
  json::Object send(const std::string& path, const std::string& body) const;
  HttpResponse exchange(const std::string& method, const std::string& path, const std::string& body,
                        const std::vector<std::pair<std::string, std::string>>& headers) const;

  bool https_ = false;
  std::string caFile_;
  std::string host_;
  uint16_t port_ = 80;
  std::string prefix_;
  std::shared_ptr<Stamper> stamper_;
  std::function<int64_t()> clock_;
  std::vector<std::pair<std::string, std::string>> headers_;
};

}  // namespace signet
