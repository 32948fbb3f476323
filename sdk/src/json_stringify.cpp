// json::stringify: the compact JSON text of a Poco value, appended into one std::string.
//
// Poco's Stringifier writes through an std::ostream one character at a time (every character
// of every string goes through ostream::write and its sentry). An activity and its answer are
// stringified on every request, and profiling the signing path showed that at about a tenth of
// the gateway's CPU. This writer produces the same bytes (tests/sdk/json_stringify_test.cpp
// compares the two on every byte value and every value type), copying runs of plain
// characters at once. Types it does not know are handed to Poco's Stringifier, so its output
// stays Poco's for them.
#include <Poco/JSON/Stringifier.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <sstream>

#include "signet/json.hpp"

namespace signet::json {

namespace {

// Poco escapes the control characters, the quote and the backslash; every other byte, the
// solidus and UTF-8 sequences included, is copied as is.
bool needsEscape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\';
}

void appendEscaped(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default: {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const char code[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      out.append(code, sizeof code);
    }
  }
}

// Whether any of the 8 bytes in `word` needs escaping, tested on all of them at once: a byte
// below 0x20, or a byte that XOR with the quote or the backslash leaves below 1 (the less-than
// test of https://graphics.stanford.edu/~seander/bithacks.html, "Determine if a word has a
// byte less than n"; exact as a yes or no for n up to 128). Much of
// what is written is runs of plain text (hex, base64url, ids); a vote's message, the request
// body itself, has a quote every few characters and still goes a byte at a time. Measured in a
// signature's profile (http_bench with PERF): appendString from 3.1 % to 2.2 %.
bool wordNeedsEscape(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  auto anyBelow = [](uint64_t x, uint64_t n) { return (x - kOnes * n) & ~x & kHighs; };
  return (anyBelow(word, 0x20) | anyBelow(word ^ (kOnes * '"'), 1) |
          anyBelow(word ^ (kOnes * '\\'), 1)) != 0;
}

void appendString(std::string& out, const std::string& text) {
  out.push_back('"');
  size_t plain = 0;  // the start of the run of characters not yet copied
  for (size_t i = 0; i < text.size(); ++i) {
    while (i + 8 <= text.size()) {  // skip whole words that need nothing
      uint64_t word;
      std::memcpy(&word, text.data() + i, 8);
      if (wordNeedsEscape(word)) break;
      i += 8;
    }
    if (i == text.size()) break;
    if (!needsEscape(static_cast<unsigned char>(text[i]))) continue;
    out.append(text, plain, i - plain);
    appendEscaped(out, static_cast<unsigned char>(text[i]));
    plain = i + 1;
  }
  out.append(text, plain, text.size() - plain);
  out.push_back('"');
}

template <typename Integer>
void appendInteger(std::string& out, Integer value) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// What Poco's Stringifier writes for a value of a type this file does not handle itself.
void appendByPoco(std::string& out, const Poco::Dynamic::Var& value) {
  std::ostringstream text;
  Poco::JSON::Stringifier::condense(value, text);
  out += text.str();
}

template <typename Integer>
bool appendIf(std::string& out, const Poco::Dynamic::Var& value) {
  if (value.type() != typeid(Integer)) return false;
  appendInteger(out, value.extract<Integer>());
  return true;
}

void append(std::string& out, const Poco::Dynamic::Var& value);

void appendObject(std::string& out, const Poco::JSON::Object& object) {
  out.push_back('{');
  bool first = true;
  for (const auto& [key, member] : object) {
    if (!first) out.push_back(',');
    first = false;
    appendString(out, key);
    out.push_back(':');
    append(out, member);
  }
  out.push_back('}');
}

void appendArray(std::string& out, const Poco::JSON::Array& array) {
  out.push_back('[');
  bool first = true;
  for (const auto& element : array) {
    if (!first) out.push_back(',');
    first = false;
    append(out, element);
  }
  out.push_back(']');
}

void append(std::string& out, const Poco::Dynamic::Var& value) {
  const std::type_info& type = value.type();
  if (type == typeid(Object)) {
    const auto& object = value.extract<Object>();
    if (object)
      appendObject(out, *object);
    else
      out += "null";
  } else if (type == typeid(Array)) {
    const auto& array = value.extract<Array>();
    if (array)
      appendArray(out, *array);
    else
      out += "null";
  } else if (type == typeid(std::string)) {
    appendString(out, value.extract<std::string>());
  } else if (value.isEmpty()) {
    out += "null";
  } else if (type == typeid(bool)) {
    out += value.extract<bool>() ? "true" : "false";
  } else if (!(appendIf<int>(out, value) || appendIf<unsigned>(out, value) ||
               appendIf<long>(out, value) || appendIf<unsigned long>(out, value) ||
               appendIf<long long>(out, value) || appendIf<unsigned long long>(out, value))) {
    appendByPoco(out, value);  // doubles, chars, dates, Poco's own containers
  }
}

}  // namespace

std::string stringify(const Poco::Dynamic::Var& value) {
  std::string out;
  out.reserve(256);
  append(out, value);
  return out;
}

}  // namespace signet::json
