// json::stringify writes its own JSON rather than going through Poco's Stringifier; these tests
// hold it to Poco's bytes, since stored activities and answers were written by Poco before.
#include <Poco/JSON/Stringifier.h>
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "signet/error.hpp"
#include "signet/json.hpp"

using namespace signet;

namespace {
std::string byPoco(const Poco::Dynamic::Var& value) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(value, out);
  return out.str();
}
}  // namespace

TEST(JsonStringify, EveryByteOfAStringAndAKeyIsWrittenAsPocoWritesIt) {
  for (int c = 0; c < 256; ++c) {
    std::string text = std::string("a") + static_cast<char>(c) + "b";
    auto o = json::object();
    o->set(text, text);
    EXPECT_EQ(json::stringify(o), byPoco(o)) << "byte " << c;
    EXPECT_EQ(json::stringify(Poco::Dynamic::Var(text)), byPoco(text)) << "byte " << c;
  }
}

// Plain text is tested eight bytes at a time: a byte to escape is found wherever it sits in or
// across those words, and the text's end is handled at every length.
TEST(JsonStringify, AByteToEscapeIsFoundAtEveryOffsetOfEveryLength) {
  for (size_t length = 0; length <= 24; ++length) {
    std::string plain(length, 'x');
    EXPECT_EQ(json::stringify(plain), byPoco(plain)) << "length " << length;
    for (size_t at = 0; at < length; ++at)
      for (int c = 0; c < 256; ++c) {
        std::string text = plain;
        text[at] = static_cast<char>(c);
        ASSERT_EQ(json::stringify(text), byPoco(text))
            << "byte " << c << " at " << at << " of " << length;
      }
  }
}

TEST(JsonStringify, EscapesAreTheOnesJsonReadersExpect) {
  EXPECT_EQ(json::stringify(std::string("q\"b\\s/n\nt\tu\x01\x1f")),
            R"("q\"b\\s/n\nt\tu\u0001\u001F")");
  EXPECT_EQ(json::stringify(std::string("é€😀")), "\"é€😀\"");  // UTF-8 is copied as is
  EXPECT_EQ(json::stringify(std::string()), "\"\"");
}

TEST(JsonStringify, EveryValueTypeMatchesPoco) {
  auto inner = json::object();
  inner->set("z", 1);
  inner->set("a", std::string("x"));
  auto list = json::array();
  list->add(true);
  list->add(false);
  list->add(Poco::Dynamic::Var());
  list->add(std::numeric_limits<int64_t>::min());
  list->add(std::numeric_limits<uint64_t>::max());
  list->add(-7);
  list->add(7u);
  list->add(1.5);
  list->add(0.1);
  list->add(1e300);
  list->add('c');
  list->add(inner);
  list->add(json::array());
  list->add(json::object());
  auto o = json::object();
  o->set("list", list);
  o->set("nested", inner);
  o->set("empty", std::string());
  o->set("null", Poco::Dynamic::Var());
  o->set("int", 42);
  o->set("bool", true);
  EXPECT_EQ(json::stringify(o), byPoco(o));
  EXPECT_EQ(json::stringify(list), byPoco(list));
  EXPECT_EQ(json::stringify(Poco::Dynamic::Var()), "null");
  EXPECT_EQ(json::stringify(Poco::Dynamic::Var(3.25)), byPoco(3.25));
}

TEST(JsonStringify, MembersComeInKeyOrderAndParsedTextRoundTrips) {
  auto o = json::object();
  o->set("b", 1);
  o->set("a", 2);
  EXPECT_EQ(json::stringify(o), R"({"a":2,"b":1})");
  std::string text = R"({"activity":{"id":"x","intent":{"a":[1,"2",{"c":null}]},"ok":true}})";
  EXPECT_EQ(json::stringify(json::parseObject(text, "test")), text);
}

TEST(JsonStringify, ANullObjectOrArrayPointerIsNull) {
  EXPECT_EQ(json::stringify(json::Object()), "null");
  EXPECT_EQ(json::stringify(json::Array()), "null");
}

// A stored list parses as itself; anything else is refused naming what it was and what held it.
TEST(JsonParse, AnArrayParsesStrictlyAndAnythingElseIsRefusedByName) {
  auto list = json::parseArray(R"([{"b":1,"a":"x"},2,"three"])", "stored list");
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ(json::stringify(list), R"([{"a":"x","b":1},2,"three"])");
  auto refusal = [](const std::string& text) {
    try {
      json::parseArray(text, "stored list");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(R"({"a":[]})"), "stored list must be a JSON array, got an object");
  EXPECT_NE(refusal("[1,"), "accepted");
  EXPECT_EQ(refusal("[1,").rfind("malformed JSON in stored list", 0), 0u) << refusal("[1,");
  // Strict as parseObject is: a key twice in an element is refused.
  EXPECT_NE(refusal(R"([{"a":1,"a":2}])"), "accepted");
}
