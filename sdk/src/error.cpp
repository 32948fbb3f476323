#include "signet/error.hpp"

namespace signet {

int httpStatusFor(Code code) {
  switch (code) {
    case Code::kOk:
      return 200;
    case Code::kInvalidArgument:
      return 400;
    case Code::kFailedPrecondition:
      return 400;
    case Code::kNotFound:
      return 404;
    case Code::kAlreadyExists:
      return 409;
    case Code::kPermissionDenied:
      return 403;
    case Code::kResourceExhausted:
      return 429;
    case Code::kUnimplemented:
      return 501;
    case Code::kUnavailable:
      return 503;
    case Code::kUnauthenticated:
      return 401;
    case Code::kInternal:
      return 500;
  }
  return 500;
}

const char* codeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kPermissionDenied:
      return "PermissionDenied";
    case Code::kResourceExhausted:
      return "ResourceExhausted";
    case Code::kFailedPrecondition:
      return "FailedPrecondition";
    case Code::kUnimplemented:
      return "Unimplemented";
    case Code::kInternal:
      return "Internal";
    case Code::kUnavailable:
      return "Unavailable";
    case Code::kUnauthenticated:
      return "Unauthenticated";
  }
  return "Unknown";
}

}  // namespace signet
