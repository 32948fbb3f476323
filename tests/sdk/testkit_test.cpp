// The plugin test kit runs an activity's after-commit calls as the gateway does
// (ActivityPipeline::runAfterCommit): the calls once the handler's writes are committed; when
// one fails, every undo; and whatever the outcome, what each call keeps, after the undos.
#include <gtest/gtest.h>

#include "signet/error.hpp"
#include "signet/testkit.hpp"

namespace {

using namespace signet;
using testkit::PluginHarness;

// A plugin of the test's own: its activity writes "handler", then makes a call that fails when
// asked to, with an undo and a keep that write what they are.
void registerCalls(Registry& r) {
  r.activity({.type = "ACTIVITY_TYPE_SIGNET_TEST_CALL",
              .path = "signet_test_call",
              .intentKey = "signetTestCallIntent",
              .resultKey = "signetTestCallResult",
              .resource = "MEMO",
              .action = "CREATE",
              .handler =
                  [](ActivityContext& ctx, const json::Object& p) {
                    const bool fail = json::optionalBool(p, "fail", "parameters", false);
                    auto log = [](ActivityContext& c, const char* what) {
                      c.db().exec("INSERT INTO call_log (what) VALUES (?)", {std::string(what)});
                    };
                    log(ctx, "handler");
                    ctx.afterCommit(AfterCommitCall{[fail] {
                                                      if (fail)
                                                        throw Error(Code::kUnavailable,
                                                                    "the relay is down");
                                                    },
                                                    [log](ActivityContext& c) { log(c, "undo"); },
                                                    [log](ActivityContext& c) { log(c, "keep"); }});
                    return json::object();
                  },
              .parameters = {{.name = "fail", .type = ParamType::kBool, .required = false}}});
  r.migrations("calls", {{1, "calls", {"CREATE TABLE call_log (what TEXT NOT NULL)"}}});
}

std::string logOf(PluginHarness& harness) {
  std::string out;
  harness.read([&](Db& db) {
    for (const auto& row : db.query("SELECT what FROM call_log ORDER BY rowid"))
      out += (out.empty() ? "" : ",") + row.str("what");
  });
  return out;
}

TEST(TestkitAfterCommit, AKeepRunsAfterASuccessfulCallAndAfterTheUndosOfAFailedOne) {
  PluginHarness ok(registerCalls);
  ok.submit("ACTIVITY_TYPE_SIGNET_TEST_CALL", json::object());
  EXPECT_EQ(logOf(ok), "handler,keep");

  PluginHarness failing(registerCalls);
  json::Object p = json::object();
  p->set("fail", true);
  try {
    failing.submit("ACTIVITY_TYPE_SIGNET_TEST_CALL", p);
    ADD_FAILURE() << "a failed call did not fail the activity";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the relay is down");
  }
  EXPECT_EQ(logOf(failing), "handler,undo,keep");
}

}  // namespace
