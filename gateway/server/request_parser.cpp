#include "server/request_parser.hpp"

#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <limits>

#include "signet/encoding.hpp"

namespace signet {

namespace {
namespace http = boost::beast::http;
using boost::beast::error_code;
using BeastText = boost::beast::string_view;

std::string text(BeastText s) {
  return std::string(s.data(), s.size());
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// A value as an error message may quote it: printable ASCII only.
std::string excerpt(std::string_view value) {
  std::string out;
  for (char c : value.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// Line `n` of a head whose lines end in CRLF (0: the request line), without its CRLF.
std::string_view lineOf(std::string_view head, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n && at < head.size(); ++i) {
    size_t end = head.find("\r\n", at);
    at = end == head.npos ? head.size() : end + 2;
  }
  size_t end = head.find("\r\n", at);
  return head.substr(at, end == head.npos ? head.npos : end - at);
}
}  // namespace

ChunkLineScan::Verdict ChunkLineScan::scan(std::string_view line) {
  if (closed_) return Verdict::kClosed;
  for (; scanned_ < line.size(); ++scanned_) {
    const char c = line[scanned_];
    if (c == '\r') {
      // Beast ends the line at its first CR, quoted or escaped or not: a CRLF, or a bare CR
      // that Beast refuses itself.
      if (scanned_ + 1 == line.size()) return Verdict::kIncomplete;
      closed_ = !(inQuote_ && line[scanned_ + 1] == '\n');
      return closed_ ? Verdict::kClosed : Verdict::kOpenQuote;
    }
    if (escaped_)
      escaped_ = false;
    else if (c == '"')
      inQuote_ = !inQuote_;
    else if (c == '\\' && inQuote_)
      escaped_ = true;
  }
  return Verdict::kIncomplete;
}

// Beast's parser, one step a call (eager off) so that the checks between steps see every
// chunk-size line. Its callbacks fill the request and refuse what the policy does not accept.
class RequestParser::Reader : public http::basic_parser<true> {
 public:
  explicit Reader(RequestParser& owner) : owner_(owner) {
    eager(false);
    header_limit(std::numeric_limits<std::uint32_t>::max());  // the head check bounds it
    // The limit is applied in the callbacks, where a body over it ends the request with
    // bodyTooLarge instead of an error. (Boost 1.74 compares every length against an unset
    // limit as if it were 0, so "no limit" must be the largest one.)
    body_limit(std::numeric_limits<std::uint64_t>::max());
  }

  bool requestLine = false;  // the request line was read
  bool http10 = false;       // HTTP/1.0
  size_t fields = 0;         // header fields read
  size_t lengths = 0;        // Content-Length fields among them
  bool chunked = false;      // Transfer-Encoding: chunked
  uint64_t declared = 0;     // the Content-Length
  std::string expect;        // the Expect field, lower case
  bool inChunk = false;      // between a chunk's size line and its last byte
  bool afterChunk = false;   // a chunk's data is complete: its CRLF comes next
  bool tooLarge = false;     // stopped: the body is over the limit, and is not read

 private:
  void refuse(error_code& ec, int status, std::string message) {
    owner_.fail(status, std::move(message));
    ec = http::error::bad_value;  // any error stops Beast; the owner has the reason
  }

  void on_request_impl(http::verb, BeastText method, BeastText target, int version,
                       error_code& ec) override {
    requestLine = true;
    http10 = version == 10;
    if (target.empty() || (target[0] != '/' && target != "*"))
      return refuse(ec, 400, "the request target is not an absolute path");
    HttpRequestData& r = owner_.request_;
    r.method = text(method);
    r.path = text(target);
    if (auto q = r.path.find('?'); q != std::string::npos) {
      r.query = r.path.substr(q + 1);
      r.path.resize(q);
    }
  }

  void on_response_impl(int, BeastText, int, error_code&) override {}

  void on_field_impl(http::field, BeastText rawName, BeastText rawValue, error_code& ec) override {
    if (owner_.state_ != State::kHead) return;  // trailer fields are read and ignored
    const size_t maxHeaders = owner_.limits_.maxHeaders;
    if (++fields > maxHeaders)
      return refuse(ec, 431, "the request has over " + std::to_string(maxHeaders) + " headers");
    std::string name = asciiLower(text(rawName));
    std::string value = text(rawValue);
    if (name == "content-length") {
      // Beast accepts a repeated or listed length when the values agree; a proxy may not.
      if (++lengths > 1)
        return refuse(ec, 400,
                      "the request has " + std::to_string(lengths) + " Content-Length headers");
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
        return refuse(ec, 400, "Content-Length " + excerpt(value) + " is not a decimal length");
      if (value.size() > 15)
        return refuse(
            ec, 400,
            "Content-Length " + excerpt(value) + " is beyond any body this server accepts");
      declared = std::stoull(value);
    } else if (name == "transfer-encoding") {
      if (asciiLower(value) != "chunked")
        return refuse(ec, 400,
                      "Transfer-Encoding " + excerpt(value) +
                          " is not supported; send chunked or a Content-Length");
      chunked = true;
    } else if (name == "expect") {
      expect = asciiLower(value);
    }
    HttpRequestData& r = owner_.request_;
    auto [it, added] = r.headers.emplace(name, value);
    if (added) return;
    // A list field sent on several lines is one list, in the order received (RFC 9110 §5.3):
    // each proxy may have added a line of its own. Any other repeated field is recorded, and a
    // repeated stamp is refused, not resolved to one of its values.
    if (name == "x-forwarded-for")
      it->second += ", " + value;
    else
      r.repeatedHeaders.push_back(name);
  }

  void on_header_impl(error_code&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}

  size_t on_body_impl(BeastText body, error_code&) override {
    owner_.request_.body.append(body.data(), body.size());
    return body.size();
  }

  void on_chunk_header_impl(std::uint64_t size, BeastText, error_code& ec) override {
    afterChunk = false;
    HttpRequestData& r = owner_.request_;
    if (size > owner_.limits_.maxBodyBytes - r.body.size()) {
      tooLarge = true;
      r.bodyTooLarge = true;
      r.declaredLength = r.body.size() + size;
      r.body.clear();
      ec = http::error::body_limit;
      return;
    }
    inChunk = size > 0;
  }

  size_t on_chunk_body_impl(std::uint64_t remain, BeastText body, error_code&) override {
    owner_.request_.body.append(body.data(), body.size());
    if (remain == body.size()) {
      inChunk = false;
      afterChunk = true;
    }
    return body.size();
  }

  void on_finish_impl(error_code&) override {}

  RequestParser& owner_;
};

RequestParser::RequestParser(ParserLimits limits)
    : limits_(limits), reader_(std::make_unique<Reader>(*this)) {}

RequestParser::~RequestParser() = default;

void RequestParser::reset() {
  reader_ = std::make_unique<Reader>(*this);
  chunkLine_ = ChunkLineScan{};
  state_ = State::kHead;
  started_ = false;
  pending_.clear();
  headScanned_ = 0;
  headEnd_ = 0;
  request_ = HttpRequestData{};
  keepAlive_ = true;
  expectContinue_ = false;
  errorStatus_ = 0;
  errorMessage_.clear();
}

void RequestParser::fail(int status, std::string message) {
  state_ = State::kError;
  errorStatus_ = status;
  errorMessage_ = std::move(message);
  keepAlive_ = false;
}

size_t RequestParser::feed(const char* data, size_t size) {
  if (state_ == State::kDone || state_ == State::kError) return 0;
  size_t skipped = 0;
  if (!started_) {
    // Blank lines before a request line are skipped (RFC 9112 §2.2), as a client may send a
    // stray CRLF after a body.
    while (skipped < size && (data[skipped] == '\r' || data[skipped] == '\n')) ++skipped;
    if (skipped == size) return size;
    started_ = true;
  }
  if (pending_.empty()) {  // the usual case: no copy unless part of a head or line is left
    size_t used = skipped + step(data + skipped, size - skipped);
    if (state_ == State::kDone) return used;
    if (state_ == State::kHead || state_ == State::kBody) pending_.assign(data + used, size - used);
    return size;
  }
  pending_.append(data, size);
  size_t used = step(pending_.data(), pending_.size());
  if (state_ == State::kDone) {
    // What is left is the next request's, all of it from `data`: the bytes kept from earlier
    // feeds were part of this one, or Beast would not have needed more.
    size_t left = std::min(pending_.size() - used, size);
    pending_.clear();
    return size - left;
  }
  pending_.erase(0, used);
  return size;
}

bool RequestParser::headArrived(const char* p, size_t n) {
  const size_t limit = std::min(n, limits_.maxHeadBytes);
  for (size_t j = headScanned_; j < limit; ++j) {
    if (p[j] == '\n') {
      if (j == 0 || p[j - 1] != '\r') {
        fail(400, "a line of the request's head ends in a bare LF; HTTP/1.1 lines end in CRLF");
        return false;
      }
      if (j >= 3 && p[j - 2] == '\n') {  // CRLF CRLF: the blank line that ends the head
        headEnd_ = j + 1;
        return true;
      }
    } else if ((p[j] == ' ' || p[j] == '\t') && j > 0 && p[j - 1] == '\n') {
      fail(400, "a header is folded over two lines, which HTTP/1.1 no longer allows");
      return false;
    }
  }
  headScanned_ = limit;
  if (n > limits_.maxHeadBytes)
    fail(431, "the request's head is over " + std::to_string(limits_.maxHeadBytes) + " bytes");
  return false;
}

size_t RequestParser::step(const char* p, size_t n) {
  size_t used = 0;
  error_code ec;
  if (state_ == State::kHead) {
    if (!headArrived(p, n)) return state_ == State::kError ? n : 0;
    used = reader_->put(boost::asio::const_buffer(p, headEnd_), ec);
    if (state_ == State::kError) return n;  // a callback refused
    if (ec || !reader_->is_header_done()) {
      refuse(ec ? ec.message() : "incomplete head", std::string_view(p, headEnd_));
      return n;
    }
    state_ = State::kBody;
    // HTTP/1.0 with a chunked body: the connection closes after it (RFC 9112 §6.1), since a
    // 1.0 intermediary may have framed it otherwise.
    keepAlive_ = reader_->keep_alive() && !(reader_->http10 && reader_->chunked);
    if (reader_->declared > limits_.maxBodyBytes) {
      // Not read: the answer is 413 and the connection closes after it.
      request_.bodyTooLarge = true;
      request_.declaredLength = reader_->declared;
      keepAlive_ = false;
      state_ = State::kDone;
      return used;
    }
    expectContinue_ =
        reader_->expect == "100-continue" && (reader_->chunked || reader_->declared > 0);
    if (reader_->declared > 0) request_.body.reserve(reader_->declared);
    if (reader_->is_done()) {  // no body (RFC 9112 §6.3: without a length or chunks, none)
      state_ = State::kDone;
      return used;
    }
  }
  // The body, a Beast step at a time: some data, or one chunk-size line (with the trailers,
  // after the last chunk), which Beast sees only within the head's bound.
  while (used < n) {
    const bool framing = reader_->chunked && !reader_->inChunk;
    const char* at = p + used;
    const size_t available = n - used;
    if (framing && reader_->afterChunk && (at[0] != '\r' || (available > 1 && at[1] != '\n'))) {
      fail(400, "a chunk of the body is longer than its size says");
      return n;
    }
    // Boost 1.74 asserts that the final chunk's line is presented again with at least five
    // bytes ("0\r\n" and two of the blank line); a body whose first chunk is the last one,
    // arriving a byte at a time, would present four. Nothing is decided at four bytes anyway.
    if (framing && !reader_->afterChunk && available == 4 && std::string_view(at, 3) == "0\r\n")
      break;
    const size_t window = framing ? std::min(available, limits_.maxHeadBytes) : available;
    const size_t lineStart = reader_->afterChunk ? 2 : 0;  // after the last chunk's CRLF
    if (framing && window > lineStart &&
        chunkLine_.scan(std::string_view(at + lineStart, window - lineStart)) ==
            ChunkLineScan::Verdict::kOpenQuote) {
      fail(400, "a chunk extension's quoted string is still open at the end of its line");
      return n;
    }
    size_t took = reader_->put(boost::asio::const_buffer(at, window), ec);
    used += took;
    if (took > 0) chunkLine_ = ChunkLineScan{};  // a chunk-size line, or data, was consumed
    if (reader_->tooLarge) {  // not read: the answer is 413 and the connection closes after it
      keepAlive_ = false;
      state_ = State::kDone;
      return used;
    }
    if (state_ == State::kError) return n;
    if (ec == http::error::need_more) {
      if (framing && available > limits_.maxHeadBytes) {
        fail(400, "a chunk-size line with its trailers is over " +
                      std::to_string(limits_.maxHeadBytes) + " bytes");
        return n;
      }
      break;
    }
    if (ec) {
      refuse(ec.message(), std::string_view(p + used, n - used));
      return n;
    }
    if (reader_->is_done()) {
      state_ = State::kDone;
      return used;
    }
    if (took == 0) break;
  }
  return used;
}

// Beast stopped on `what` (its own message). The refusal names what was wrong in the terms
// of the request: the request line, a header line, a length, a chunk size. `rest` is the head,
// or in the body the bytes Beast did not consume.
void RequestParser::refuse(const std::string& what, std::string_view rest) {
  const Reader& r = *reader_;
  if (!r.requestLine) {
    std::string_view line = lineOf(rest, 0);
    std::string_view version = line.substr(line.rfind(' ') + 1);
    if (line.find(' ') != line.rfind(' ') && version.substr(0, 5) == "HTTP/" &&
        version != "HTTP/1.1" && version != "HTTP/1.0")
      return fail(505, "HTTP version \"" + excerpt(version) + "\" is not supported; use HTTP/1.1");
    return fail(400, "the request line is not METHOD TARGET HTTP-VERSION");
  }
  if (state_ == State::kHead) {
    // Beast checks the framing fields before the callback sees them: say which rule it was.
    std::string_view line = lineOf(rest, r.fields + 1);
    std::string name = asciiLower(std::string(line.substr(0, line.find(':'))));
    std::string value = line.find(':') == line.npos ? "" : trim(line.substr(line.find(':') + 1));
    if (name == "content-length" || name == "transfer-encoding") {
      if ((name == "content-length" && r.chunked) || (name == "transfer-encoding" && r.lengths))
        return fail(400, "the request has both Content-Length and Transfer-Encoding");
      if (name == "transfer-encoding")
        return fail(400, "the request has more than one Transfer-Encoding header");
      if (r.lengths > 0)
        return fail(400,
                    "the request has " + std::to_string(r.lengths + 1) + " Content-Length headers");
      if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos)
        return fail(400,
                    "Content-Length " + excerpt(value) + " is beyond any body this server accepts");
      return fail(400, "Content-Length " + excerpt(value) + " is not a decimal length");
    }
    return fail(
        400, "header line " + std::to_string(r.fields + 1) + " is not NAME: VALUE (" + what + ")");
  }
  if (r.chunked && !r.inChunk) {
    std::string_view line =
        rest.substr(std::min<size_t>(r.afterChunk ? 2 : 0, rest.size()));  // the last chunk's CRLF
    line = line.substr(0, line.find_first_of(";\r\n"));
    std::string size = trim(line);
    if (size.empty() || size.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      return fail(400, "chunk size \"" + excerpt(size) + "\" is not hexadecimal");
    return fail(
        400, "a chunk-size line or the trailers after the last chunk are malformed (" + what + ")");
  }
  fail(400, "the request's body is malformed (" + what + ")");
}

}  // namespace signet
