// A C++ client for the coordinator API: an API-key stamper and a client that submits
// activities (polling while they are CREATED or PENDING) and runs queries. The CLI and the
// tests use it; it speaks plain HTTP/1.1 to the base URL.
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

class Client {
 public:
  Client(std::string baseUrl, std::shared_ptr<Stamper> stamper);

  HttpResponse post(const std::string& path, const std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& headers = {}) const;
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

  std::string host_;
  uint16_t port_ = 80;
  std::string prefix_;
  std::shared_ptr<Stamper> stamper_;
  std::function<int64_t()> clock_;
  std::vector<std::pair<std::string, std::string>> headers_;
};

}  // namespace signet
