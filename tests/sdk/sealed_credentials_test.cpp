// SealedCredentials: a credential's secret parts live and die with its row. A plugin of the
// test's own stores credentials through it, on the test kit's real store and keyring.
#include <gtest/gtest.h>

#include "signet/error.hpp"
#include "signet/sealed_credentials.hpp"
#include "signet/testkit.hpp"

namespace {

using namespace signet;
using testkit::PluginHarness;

const SealedCredentials kStore{.table = "test_credentials",
                               .idColumn = "credential_id",
                               .noun = "test credential",
                               .maxPerOrganization = 2,
                               .parts = {{.prefix = "", .suffix = ":a", .kind = "test-a"},
                                         {.prefix = "test:", .suffix = "", .kind = "test-b"}}};

void registerCredentials(Registry& r) {
  auto activity = [&](const char* name, ActivityHandler handler) {
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(c));
    r.activity({.type = "ACTIVITY_TYPE_" + upper,
                .path = name,
                .intentKey = std::string(name) + "Intent",
                .resultKey = std::string(name) + "Result",
                .resource = "MEMO",
                .action = "CREATE",
                .handler = std::move(handler)});
  };
  activity("signet_test_create", [](ActivityContext& ctx, const json::Object& p) {
    kStore.requireRoom(ctx.db(), ctx.organizationId());
    std::string id = json::requireString(p, "id", "parameters");
    ctx.db().exec("INSERT INTO test_credentials (credential_id, organization_id) VALUES (?, ?)",
                  {id, ctx.organizationId()});
    for (const auto& part : kStore.parts) {
      std::string secret = id + "/" + part.kind;
      kStore.seal(ctx.keyring(), part, id,
                  crypto::SecretBytes(Bytes(secret.begin(), secret.end())));
    }
    return json::object();
  });
  activity("signet_test_delete", [](ActivityContext& ctx, const json::Object& p) {
    json::Object r = json::object();
    r->set("removed", kStore.remove(ctx.db(), ctx.keyring(), ctx.organizationId(),
                                    json::requireString(p, "id", "parameters")));
    return r;
  });
  activity("signet_test_forget", [](ActivityContext& ctx, const json::Object&) {
    kStore.removeAllOf(ctx.db(), ctx.keyring(), ctx.organizationId());
    return json::object();
  });
  r.query({"signet_test_open", [](RequestContext& ctx, const json::Object& b) {
             auto secret =
                 kStore.open(ctx.keyring(), kStore.parts[1], json::requireString(b, "id", ""));
             json::Object r = json::object();
             r->set("secret", std::string(secret.bytes().begin(), secret.bytes().end()));
             return r;
           }});
  r.migrations("sealed", {{1,
                           "credentials",
                           {"CREATE TABLE test_credentials (credential_id TEXT PRIMARY KEY, "
                            "organization_id TEXT NOT NULL)"}}});
}

json::Object withId(const std::string& id) {
  json::Object p = json::object();
  p->set("id", id);
  return p;
}

int64_t count(PluginHarness& h, const std::string& sql) {
  int64_t n = 0;
  h.read([&](Db& db) { n = db.queryOne(sql)->i64("n"); });
  return n;
}

TEST(SealedCredentials, PartsAreSealedOpenedAndErasedWithTheirRow) {
  PluginHarness h(registerCredentials);
  const std::string sealed = "SELECT COUNT(*) AS n FROM signet_secrets";
  const int64_t before = count(h, sealed);
  h.submit("ACTIVITY_TYPE_SIGNET_TEST_CREATE", withId("one"));
  h.submit("ACTIVITY_TYPE_SIGNET_TEST_CREATE", withId("two"));
  EXPECT_EQ(count(h, sealed), before + 4);
  EXPECT_EQ(h.query("signet_test_open", withId("two"))->getValue<std::string>("secret"),
            "two/test-b");

  // The bound: a third is refused, naming it, and changes nothing.
  try {
    h.submit("ACTIVITY_TYPE_SIGNET_TEST_CREATE", withId("three"));
    FAIL() << "a third credential was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("already has 2 test credentials, the limit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(count(h, "SELECT COUNT(*) AS n FROM test_credentials"), 2);

  // Removing one erases its parts, and only its.
  EXPECT_TRUE(
      h.submit("ACTIVITY_TYPE_SIGNET_TEST_DELETE", withId("one"))->getValue<bool>("removed"));
  EXPECT_EQ(count(h, sealed), before + 2);
  EXPECT_THROW(h.query("signet_test_open", withId("one")), Error);
  EXPECT_FALSE(
      h.submit("ACTIVITY_TYPE_SIGNET_TEST_DELETE", withId("one"))->getValue<bool>("removed"));

  // The organization goes: every row and part.
  h.submit("ACTIVITY_TYPE_SIGNET_TEST_FORGET", json::object());
  EXPECT_EQ(count(h, "SELECT COUNT(*) AS n FROM test_credentials"), 0);
  EXPECT_EQ(count(h, sealed), before);
}

}  // namespace
