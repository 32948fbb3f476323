// escapeBytes (signet/encoding.hpp): what the request log and the messages naming a field show
// of a stranger's bytes.
#include <gtest/gtest.h>

#include <string>

#include "signet/encoding.hpp"

namespace signet {
namespace {

bool printableAscii(unsigned char c) {
  return c >= 0x20 && c < 0x7f && c != '\\';
}

TEST(EscapeBytesTest, EveryByteThePredicateRefusesIsWrittenAsLowerCaseHex) {
  EXPECT_EQ(escapeBytes("", printableAscii), "");
  EXPECT_EQ(escapeBytes("GET /healthz", printableAscii), "GET /healthz");
  const std::string bytes{'a', '\0', '\x1f', '\x7f', '\x80', '\xff', '\\', 'z'};
  EXPECT_EQ(escapeBytes(bytes, printableAscii), "a\\x00\\x1f\\x7f\\x80\\xff\\x5cz");
  // A forged log line stays on one line.
  EXPECT_EQ(escapeBytes("ok\r\n200 fake", printableAscii), "ok\\x0d\\x0a200 fake");
}

TEST(EscapeBytesTest, ThePredicateDecidesWhatStays) {
  auto lettersOnly = [](unsigned char c) { return c >= 'a' && c <= 'z'; };
  EXPECT_EQ(escapeBytes("a b", lettersOnly), "a\\x20b");
}

}  // namespace
}  // namespace signet
