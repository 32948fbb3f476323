// An incremental HTTP/1.1 request parser: bytes in as they arrive, a request out once its
// head and body are complete. It keeps no socket and no clock, so the event loop owns the
// deadlines and the parser can be tested and fuzzed on its own.
//
// The grammar is Boost.Beast's (`http::basic_parser`): request line, field names and values,
// Content-Length and chunk sizes are tokenized there, not here. What stays ours is the policy
// Beast leaves open, each item a refusal with its own message (RFC 9112):
// - one framing only: Content-Length or chunked, never both, never two lengths; lengths in
//   plain decimal of at most 15 digits; no other transfer coding;
// - lines end in CRLF (a bare LF is refused at once rather than waited on, as Beast would)
//   and no field is folded over two lines;
// - a bounded head, a bounded number of fields, a chunk that is exactly as long as its size
//   says (refused at its first extra byte), a bounded chunk-size line with its trailers;
// - a body over the limit is not read: the request completes with bodyTooLarge, and the
//   connection is closed after the answer.
// Beast sees a head only once it is complete, and a chunk-size line only within its bound, so
// a stream gives the same requests and refusals however the socket splits it (the fuzz target
// `http_request` checks this).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "server/router.hpp"

namespace signet {

struct ParserLimits {
  size_t maxHeadBytes = 64 * 1024;  // request line and headers together; also chunk trailers
  size_t maxHeaders = 100;
  size_t maxBodyBytes = 1 << 20;
};

// The quoted strings of a chunk-size line, followed as its bytes arrive. Beast reads a chunk
// extension's quoted string to the end of the bytes it is given, past the line's CRLF; and
// when it meets that end it has already taken the chunk's size off its body limit, so a retry
// with more bytes can fail on the limit. A line that ends inside a quoted string would thus be
// waited on or refused depending on how the socket split the stream. RequestParser refuses
// such a line once its CRLF has arrived, before Beast sees it complete. The scan resumes where
// it stopped, so a line sent a byte at a time costs its length, not its length squared.
class ChunkLineScan {
 public:
  enum class Verdict { kIncomplete, kClosed, kOpenQuote };
  // `line` starts at the line's first byte and has grown since the last call, if at all.
  Verdict scan(std::string_view line);

 private:
  size_t scanned_ = 0;
  bool inQuote_ = false;
  bool escaped_ = false;  // the previous byte was a backslash inside a quoted string
  bool closed_ = false;   // the line's first CR arrived: a CRLF outside quotes, or a bare CR
};

class RequestParser {
 public:
  enum class State { kHead, kBody, kDone, kError };

  explicit RequestParser(ParserLimits limits);
  ~RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Consumes what it can of `data` and returns how many bytes it took: all of them, unless a
  // request ended (kDone) or failed (kError) among them; bytes after that are the next
  // request's. Bytes of an incomplete head or chunk-size line are kept here meanwhile.
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
  // When kError: the status (400, 431, 505) and what was wrong.
  int errorStatus() const { return errorStatus_; }
  const std::string& errorMessage() const { return errorMessage_; }

  // Ready for the next request on the same connection.
  void reset();

 private:
  class Reader;  // Beast's parser, with the callbacks that fill request_ and apply the policy
  friend class Reader;

  // Parses what it can of p[0, n), the bytes not yet consumed; returns how many it consumed.
  size_t step(const char* p, size_t n);
  // In the head: the CRLF, folding and size checks over bytes not yet scanned; true once the
  // head is complete and checked, so that Beast may read it.
  bool headArrived(const char* p, size_t n);
  // Beast's refusal `what`, said in this parser's words; `rest` is what it did not consume.
  void refuse(const std::string& what, std::string_view rest);
  void fail(int status, std::string message);

  ParserLimits limits_;
  std::unique_ptr<Reader> reader_;
  ChunkLineScan chunkLine_;  // the chunk-size line Beast is waiting on, if any
  State state_ = State::kHead;
  bool started_ = false;
  std::string pending_;     // bytes Beast has yet to consume, kept between feeds
  size_t headScanned_ = 0;  // of pending_, in the head: bytes the head checks have seen
  size_t headEnd_ = 0;      // the head's length, once its blank line has arrived
  HttpRequestData request_;
  bool keepAlive_ = true;
  bool expectContinue_ = false;
  int errorStatus_ = 0;
  std::string errorMessage_;
};

}  // namespace signet
