// An incremental HTTP/1.1 request parser: bytes in as they arrive, a request out once its
// head and body are complete. It keeps no socket and no clock, so the event loop owns the
// deadlines and the parser can be tested and fuzzed on its own.
//
// Strict where leniency lets requests be smuggled or misread (RFC 9112): one framing only
// (Content-Length or chunked, never both, never two lengths), lengths in plain decimal, a
// bounded head, no body without a length or chunks. A body over the limit is not read: the
// request completes with bodyTooLarge, and the connection is closed after the answer.
#pragma once

#include <cstddef>
#include <string>

#include "server/router.hpp"

namespace signet {

struct ParserLimits {
  size_t maxHeadBytes = 64 * 1024;  // request line and headers together
  size_t maxHeaders = 100;
  size_t maxBodyBytes = 1 << 20;
};

class RequestParser {
 public:
  enum class State { kHead, kBody, kChunkSize, kChunkData, kChunkEnd, kTrailers, kDone, kError };

  explicit RequestParser(ParserLimits limits) : limits_(limits) {}

  // Consumes what it can of `data` and returns how many bytes it took. It stops at the end
  // of a request (kDone) or at an error (kError); bytes after that are the next request's.
  size_t feed(const char* data, size_t size);

  State state() const { return state_; }
  bool started() const { return started_; }  // a byte of this request has arrived
  bool headComplete() const { return state_ != State::kHead; }
  // The request, once kDone.
  HttpRequestData& request() { return request_; }
  // Whether the connection may carry another request after this one's answer.
  bool keepAlive() const { return keepAlive_; }
  // The client waits for "100 Continue" before it sends the body.
  bool expectsContinue() const { return expectContinue_; }
  // When kError: the status (400, 431, 501, 505) and what was wrong.
  int errorStatus() const { return errorStatus_; }
  const std::string& errorMessage() const { return errorMessage_; }

  // Ready for the next request on the same connection.
  void reset();

 private:
  void fail(int status, std::string message);
  bool parseHead();  // on the complete head in head_; false after fail()
  bool chunkSizeLine(const std::string& line);

  ParserLimits limits_;
  State state_ = State::kHead;
  bool started_ = false;
  std::string head_;  // the head as it arrives, up to the blank line
  std::string line_;  // a chunk-size or trailer line as it arrives
  HttpRequestData request_;
  size_t remaining_ = 0;  // body or chunk bytes still to come
  size_t headersSeen_ = 0;
  bool keepAlive_ = true;
  bool expectContinue_ = false;
  int errorStatus_ = 0;
  std::string errorMessage_;
};

}  // namespace signet
