// Errors carry a gRPC status code because that is what the official clients parse:
// {code, message, details}. The HTTP layer maps the code to a status (3->400, 16->401, ...).
#pragma once

#include <stdexcept>
#include <string>

namespace signet {

enum class Code : int {
  kOk = 0,
  kInvalidArgument = 3,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kUnauthenticated = 16,
};

class Error : public std::runtime_error {
 public:
  Error(Code code, std::string message, std::string detailCode = {})
      : std::runtime_error(message), code_(code), detailCode_(std::move(detailCode)) {}
  Code code() const { return code_; }
  // TurnkeyErrorDetail.turnkeyErrorCode, e.g. SIGNATURE_INVALID; empty when none applies.
  const std::string& detailCode() const { return detailCode_; }
  // For an error worth asking again about (ResourceExhausted, Unavailable): how many seconds
  // to wait, which the answer's Retry-After carries. 0: unknown (the answer says 1).
  int retryAfterSeconds() const { return retryAfterSeconds_; }
  Error& retryAfter(int seconds) {
    retryAfterSeconds_ = seconds;
    return *this;
  }

 private:
  Code code_;
  std::string detailCode_;
  int retryAfterSeconds_ = 0;
};

// The Retry-After value for an answer with `error`'s code: its own wait, else 1 s.
inline std::string retryAfterOf(const Error& error) {
  return std::to_string(error.retryAfterSeconds() > 0 ? error.retryAfterSeconds() : 1);
}

inline Error invalidArgument(std::string m) {
  return Error(Code::kInvalidArgument, std::move(m));
}
inline Error notFound(std::string m) {
  return Error(Code::kNotFound, std::move(m));
}
inline Error permissionDenied(std::string m) {
  return Error(Code::kPermissionDenied, std::move(m));
}
inline Error unauthenticated(std::string m, std::string detail = {}) {
  return Error(Code::kUnauthenticated, std::move(m), std::move(detail));
}
inline Error failedPrecondition(std::string m) {
  return Error(Code::kFailedPrecondition, std::move(m));
}
inline Error resourceExhausted(std::string m) {
  return Error(Code::kResourceExhausted, std::move(m));
}
inline Error internalError(std::string m) {
  return Error(Code::kInternal, std::move(m));
}

// HTTP status for a gRPC code, as the coordinator API documents it.
int httpStatusFor(Code code);
const char* codeName(Code code);

}  // namespace signet
