#include "server/request_parser.hpp"

#include <algorithm>

#include "signet/encoding.hpp"

namespace signet {

namespace {
constexpr size_t kMaxLineBytes = 4096;  // a chunk-size or trailer line

bool isTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// A header value as an error message may quote it: printable ASCII only.
std::string excerpt(const std::string& value) {
  std::string out;
  for (char c : value.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}
}  // namespace

void RequestParser::reset() {
  state_ = State::kHead;
  started_ = false;
  head_.clear();
  line_.clear();
  request_ = HttpRequestData{};
  remaining_ = 0;
  headersSeen_ = 0;
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
  size_t i = 0;
  // Reads a line of a chunked body into line_; true once it is complete (without CRLF).
  auto takeLine = [&]() {
    while (i < size) {
      char c = data[i++];
      if (c == '\n') {
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        return true;
      }
      line_ += c;
      if (line_.size() > kMaxLineBytes) {
        fail(400, "a line of the chunked body is over " + std::to_string(kMaxLineBytes) + " bytes");
        return false;
      }
    }
    return false;
  };
  while (i < size && state_ != State::kDone && state_ != State::kError) {
    switch (state_) {
      case State::kHead: {
        // Blank lines before a request line are skipped (RFC 9112 §2.2), as a client may send
        // a stray CRLF after a body.
        if (head_.empty() && (data[i] == '\r' || data[i] == '\n')) {
          ++i;
          break;
        }
        started_ = true;
        size_t old = head_.size();
        head_.append(data + i, size - i);
        size_t end = head_.find("\r\n\r\n", old >= 3 ? old - 3 : 0);
        if (end == std::string::npos) {
          if (head_.size() > limits_.maxHeadBytes)
            fail(431,
                 "the request's head is over " + std::to_string(limits_.maxHeadBytes) + " bytes");
          i = size;
          break;
        }
        size_t headLength = end + 4;
        i += headLength - old;
        head_.resize(headLength);
        if (headLength > limits_.maxHeadBytes) {
          fail(431,
               "the request's head is over " + std::to_string(limits_.maxHeadBytes) + " bytes");
          break;
        }
        parseHead();
        break;
      }
      case State::kBody:
      case State::kChunkData: {
        size_t n = std::min(remaining_, size - i);
        request_.body.append(data + i, n);
        remaining_ -= n;
        i += n;
        if (remaining_ == 0) state_ = state_ == State::kBody ? State::kDone : State::kChunkEnd;
        break;
      }
      case State::kChunkSize:
        if (takeLine()) {
          std::string line = line_;
          line_.clear();
          chunkSizeLine(line);
        }
        break;
      case State::kChunkEnd:
        if (takeLine()) {
          if (!line_.empty()) {
            fail(400, "a chunk of the body is longer than its size says");
            break;
          }
          state_ = State::kChunkSize;
        }
        break;
      case State::kTrailers:
        if (takeLine()) {
          bool blank = line_.empty();
          line_.clear();
          if (blank) state_ = State::kDone;  // trailer fields themselves are ignored
        }
        break;
      case State::kDone:
      case State::kError:
        break;
    }
  }
  return i;
}

bool RequestParser::chunkSizeLine(const std::string& line) {
  std::string digits = trim(line.substr(0, line.find(';')));  // chunk extensions are ignored
  if (digits.empty() || digits.size() > 8 ||
      digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    fail(400, "chunk size \"" + excerpt(digits) + "\" is not hexadecimal");
    return false;
  }
  size_t chunk = std::stoul(digits, nullptr, 16);
  if (chunk == 0) {
    state_ = State::kTrailers;
    return true;
  }
  if (request_.body.size() + chunk > limits_.maxBodyBytes) {
    // Not read: the answer is 413 and the connection closes after it.
    request_.bodyTooLarge = true;
    request_.declaredLength = request_.body.size() + chunk;
    request_.body.clear();
    keepAlive_ = false;
    state_ = State::kDone;
    return true;
  }
  remaining_ = chunk;
  state_ = State::kChunkData;
  return true;
}

bool RequestParser::parseHead() {
  // Lines end in CRLF; a bare LF is accepted as recipients may (RFC 9112 §2.2).
  std::vector<std::string_view> lines;
  std::string_view head(head_.data(), head_.size() - 4);
  for (size_t at = 0; at <= head.size();) {
    size_t nl = head.find('\n', at);
    std::string_view line = head.substr(at, nl == std::string_view::npos ? head.npos : nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  // Request line: METHOD SP target SP HTTP/1.x
  std::string_view first = lines.front();
  size_t sp1 = first.find(' ');
  size_t sp2 = sp1 == first.npos ? first.npos : first.find(' ', sp1 + 1);
  if (sp1 == first.npos || sp2 == first.npos || first.find(' ', sp2 + 1) != first.npos) {
    fail(400, "the request line is not METHOD TARGET HTTP-VERSION");
    return false;
  }
  std::string method(first.substr(0, sp1));
  std::string target(first.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string version(first.substr(sp2 + 1));
  if (method.empty() || !std::all_of(method.begin(), method.end(), isTokenChar)) {
    fail(400, "the request's method is not a token");
    return false;
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    fail(505, "HTTP version \"" + excerpt(version) + "\" is not supported; use HTTP/1.1");
    return false;
  }
  if (target.empty() || (target[0] != '/' && target != "*") ||
      std::any_of(target.begin(), target.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; })) {
    fail(400, "the request target is not an absolute path");
    return false;
  }
  request_.method = method;
  request_.path = target;
  if (auto q = target.find('?'); q != std::string::npos) {
    request_.query = target.substr(q + 1);
    request_.path.resize(q);
  }

  size_t lengths = 0;
  std::string length, transferEncoding, connection, expect;
  for (size_t n = 1; n < lines.size(); ++n) {
    std::string_view line = lines[n];
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      fail(400, "a header is folded over two lines, which HTTP/1.1 no longer allows");
      return false;
    }
    size_t colon = line.find(':');
    if (colon == line.npos || colon == 0 ||
        !std::all_of(line.begin(), line.begin() + colon, isTokenChar)) {
      fail(400, "header line " + std::to_string(n) + " is not NAME: VALUE");
      return false;
    }
    if (++headersSeen_ > limits_.maxHeaders) {
      fail(431, "the request has over " + std::to_string(limits_.maxHeaders) + " headers");
      return false;
    }
    std::string name = asciiLower(std::string(line.substr(0, colon)));
    std::string value = trim(line.substr(colon + 1));
    if (name == "content-length") {
      ++lengths;
      length = value;
    } else if (name == "transfer-encoding") {
      transferEncoding = asciiLower(value);
    } else if (name == "connection") {
      connection = asciiLower(value);
    } else if (name == "expect") {
      expect = asciiLower(value);
    }
    if (!request_.headers.emplace(name, value).second) request_.repeatedHeaders.push_back(name);
  }

  keepAlive_ = version == "HTTP/1.1" ? connection.find("close") == std::string::npos
                                     : connection.find("keep-alive") != std::string::npos;
  // Framing: both, or two lengths, is how requests are smuggled past a proxy that reads them
  // the other way.
  if (lengths > 1) {
    fail(400, "the request has " + std::to_string(lengths) + " Content-Length headers");
    return false;
  }
  if (lengths == 1 && !transferEncoding.empty()) {
    fail(400, "the request has both Content-Length and Transfer-Encoding");
    return false;
  }
  if (!transferEncoding.empty() && transferEncoding != "chunked") {
    fail(400, "Transfer-Encoding " + excerpt(transferEncoding) +
                  " is not supported; send chunked or a Content-Length");
    return false;
  }
  if (lengths == 1) {
    if (length.empty() || length.find_first_not_of("0123456789") != std::string::npos) {
      fail(400, "Content-Length " + excerpt(length) + " is not a decimal length");
      return false;
    }
    if (length.size() > 15) {
      fail(400, "Content-Length " + excerpt(length) + " is beyond any body this server accepts");
      return false;
    }
  }
  size_t declared = lengths == 1 ? std::stoull(length) : 0;
  bool chunked = transferEncoding == "chunked";
  expectContinue_ = expect == "100-continue" && (chunked || declared > 0);
  if (declared > limits_.maxBodyBytes) {
    // Not read: the answer is 413 and the connection closes after it.
    request_.bodyTooLarge = true;
    request_.declaredLength = declared;
    keepAlive_ = false;
    expectContinue_ = false;
    state_ = State::kDone;
  } else if (chunked) {
    state_ = State::kChunkSize;
  } else if (declared > 0) {
    request_.body.reserve(declared);
    remaining_ = declared;
    state_ = State::kBody;
  } else {
    state_ = State::kDone;  // without a length or chunks there is no body (RFC 9112 §6.3)
  }
  head_.clear();
  head_.shrink_to_fit();
  return true;
}

}  // namespace signet
