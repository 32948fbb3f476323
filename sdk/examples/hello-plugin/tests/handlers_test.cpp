// The plugin's handlers, query and facts through the SDK's plugin test kit (signet/testkit.hpp):
// registered as the gateway would register them, on a real SQLite store, without a gateway.
#include <gtest/gtest.h>

#include "signet/testkit.hpp"

namespace {

using namespace signet;

json::Object named(const std::string& name) {
  json::Object p = json::object();
  p->set("name", name);
  return p;
}

TEST(HelloHandlers, GreetsStoresAndListsInTheCallersOrganization) {
  testkit::PluginHarness harness(signet_plugin_register);
  auto result = harness.submit("ACTIVITY_TYPE_HELLO_GREET", named("Ada"));
  EXPECT_EQ(result->getValue<std::string>("greeting"), "Hello, Ada!");

  auto greetings = harness.query("hello_list_greetings", json::object())->getArray("greetings");
  ASSERT_EQ(greetings->size(), 1u);
  EXPECT_EQ(greetings->getObject(0)->getValue<std::string>("greetingId"),
            result->getValue<std::string>("greetingId"));

  // Another organization sees none of them.
  harness.setOrganizationId("00000000-0000-4000-8000-000000000002");
  EXPECT_EQ(harness.query("hello_list_greetings", json::object())->getArray("greetings")->size(),
            0u);
}

TEST(HelloHandlers, TheShapeAndTheRulesRefuseBadNamesAndNothingIsStored) {
  testkit::PluginHarness harness(signet_plugin_register);
  for (const std::string bad : {std::string(), std::string(65, 'x'), std::string("a\nb")}) {
    try {
      harness.submit("ACTIVITY_TYPE_HELLO_GREET", named(bad));
      ADD_FAILURE() << "greeted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("parameters.name"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(harness.query("hello_list_greetings", json::object())->getArray("greetings")->size(),
            0u);
}

TEST(HelloHandlers, FactsGivePoliciesTheNameAndItsLength) {
  testkit::PluginHarness harness(signet_plugin_register);
  auto facts = harness.facts("ACTIVITY_TYPE_HELLO_GREET", named("Bartholomew"));
  EXPECT_EQ(facts->getObject("hello")->getValue<int>("name_length"), 11);
  EXPECT_EQ(harness.factKeywords(), std::vector<std::string>{"hello"});
}

}  // namespace
