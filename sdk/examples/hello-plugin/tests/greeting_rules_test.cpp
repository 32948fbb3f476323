// The plugin's rules as plain functions: no gateway needed.
#include <gtest/gtest.h>

#include "../src/greetings.hpp"

TEST(GreetingRules, GreetsANameAndRefusesBadOnesNamingTheField) {
  EXPECT_EQ(hello::greetingFor("Ada"), "Hello, Ada!");
  for (const std::string bad : {std::string(), std::string(65, 'x'), std::string("a\nb")}) {
    try {
      hello::greetingFor(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const signet::Error& e) {
      EXPECT_EQ(e.code(), signet::Code::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("parameters.name"), std::string::npos) << e.what();
    }
  }
}
