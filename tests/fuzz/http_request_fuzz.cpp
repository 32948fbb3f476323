// Fuzz target: the HTTP/1.1 request parser (server/request_parser.hpp), the first code that reads
// a connection's bytes, before anything knows who is asking: Boost.Beast's grammar with the
// framing policy, the head checks and the step-by-step feeding that are ours. The input is one
// connection's byte stream, requests pipelined; the first byte sets the sizes it arrives in, as a
// socket splits it. Beyond not crashing, it checks what the event loop relies on:
// - feed takes no more than it is given, and all of it unless a request ended or failed;
// - a complete request's body is within the limit, or the request is marked bodyTooLarge with
//   nothing of it kept; header names are lower case;
// - a refusal carries a status the server sends (400, 431 or 505) and a message;
// - the stream parsed in pieces gives the very requests and refusals it gives in one piece.
#include <string>
#include <vector>

#include "server/request_parser.hpp"

namespace {

constexpr signet::ParserLimits kLimits{.maxHeadBytes = 1024, .maxHeaders = 16, .maxBodyBytes = 256};

void check(bool holds) {
  if (!holds) __builtin_trap();
}

// What the stream parsed into, one line per request or refusal, with each piece at most `piece`
// bytes (0: the whole rest at once).
std::vector<std::string> outcomes(const char* data, size_t size, size_t piece) {
  std::vector<std::string> out;
  signet::RequestParser parser(kLimits);
  size_t at = 0;
  while (at < size && out.size() < 64) {
    size_t offered = piece == 0 ? size - at : std::min(piece, size - at);
    size_t taken = parser.feed(data + at, offered);
    check(taken <= offered);
    at += taken;
    auto state = parser.state();
    if (state != signet::RequestParser::State::kDone &&
        state != signet::RequestParser::State::kError) {
      check(taken == offered);
      continue;
    }
    if (state == signet::RequestParser::State::kError) {
      int status = parser.errorStatus();
      check(status == 400 || status == 431 || status == 505);
      check(!parser.errorMessage().empty());
      check(!parser.keepAlive());
      out.push_back("refused " + std::to_string(status) + " " + parser.errorMessage());
      return out;  // the server closes the connection after a refusal
    }
    const signet::HttpRequestData& r = parser.request();
    check(r.body.size() <= kLimits.maxBodyBytes);
    if (r.bodyTooLarge) check(r.body.empty() && !parser.keepAlive());
    std::string line = r.method + " " + r.path + "?" + r.query + " " +
                       std::to_string(r.body.size()) + ":" + r.body;
    for (const auto& [name, value] : r.headers) {
      for (char c : name) check(!(c >= 'A' && c <= 'Z'));
      line += "\n" + name + ": " + value;
    }
    out.push_back(line);
    if (!parser.keepAlive()) return out;
    parser.reset();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 16;
  const char* stream = reinterpret_cast<const char*>(data + 1);
  auto whole = outcomes(stream, size - 1, 0);
  auto pieces = outcomes(stream, size - 1, piece);
  check(whole == pieces);
  return 0;
}
