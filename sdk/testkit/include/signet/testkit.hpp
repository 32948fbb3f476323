// The plugin test kit: a plugin's handlers, queries, facts and routes, called as the gateway
// calls them but without a gateway, an HTTP server or a stamp. The store is real: SQLite in a
// temporary file, with the plugin's migrations applied, and a keyring that seals secrets under
// a random master key. Only what comes from elsewhere is set by the test: the clock, who is
// asking, and the services other modules would provide.
//
//   extern "C" void signet_plugin_register(signet::Registry&);  // what SIGNET_PLUGIN defines
//   signet::testkit::PluginHarness harness(signet_plugin_register);
//   auto result = harness.submit("ACTIVITY_TYPE_HELLO_GREET", params);
//
// Link the plugin's sources into the test (not its .so) together with Signet::testkit.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "signet/plugin.hpp"

// The registration function SIGNET_PLUGIN defines in the plugin's sources.
extern "C" void signet_plugin_register(signet::Registry& registry);

namespace signet::testkit {

using RegisterFunction = void (*)(Registry&);

struct HarnessOptions {
  // What the gateway's config would hold at plugins.settings.<name>; empty: {}.
  json::Object settings = nullptr;
  // The organization handlers act in, and who is asking (a member of its root quorum).
  std::string organizationId = "00000000-0000-4000-8000-000000000001";
  Caller caller = {.userId = "00000000-0000-4000-8000-0000000000aa",
                   .userName = "test user",
                   .organizationId = "00000000-0000-4000-8000-000000000001",
                   .publicKey = {},
                   .scheme = "SIGNATURE_SCHEME_TK_API_P256",
                   .signature = {},
                   .inRootQuorum = true,
                   .attestation = {}};
  int64_t nowMs = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
};

class PluginHarness {
 public:
  explicit PluginHarness(RegisterFunction registerPlugin, HarnessOptions options = {});
  ~PluginHarness();
  PluginHarness(const PluginHarness&) = delete;
  PluginHarness& operator=(const PluginHarness&) = delete;

  // Runs the activity of `type` as the pipeline does once policies allowed it: the declared
  // parameter shapes first, then the handler inside a transaction that commits when it
  // returns. When it throws, its writes roll back, its onFailure writes run in a transaction
  // of their own, and the exception reaches the caller as the handler threw it.
  json::Object submit(const std::string& type, const json::Object& parameters);
  // A query, as POST /public/v1/query/<path> runs it.
  json::Object query(const std::string& path, const json::Object& body);
  // The facts the activity's row gives policies ({} without a facts hook).
  json::Object facts(const std::string& type, const json::Object& parameters);
  // As the gateway runs an activity that policies govern: its reads ahead (ActivityReadAhead),
  // its facts, then submit()'s run of the handler, on one transaction and with one request cache
  // (RequestContext::requestCache).
  struct Decided {
    json::Object facts;
    json::Object result;
  };
  Decided submitAfterFacts(const std::string& type, const json::Object& parameters);
  // The SQL the last submit, submitAfterFacts, query, facts or route call ran, in order, keyring
  // reads included: what a test checks to see that a handler reuses what its facts read.
  const std::vector<std::string>& statements() const;
  // A route the plugin registered (not one of a listener), called with `subpath` ("/about").
  HttpReply route(const std::string& method, const std::string& subpath,
                  const std::string& body = {});

  // What the plugin registered.
  const std::vector<ActivitySpec>& activities() const;
  const std::vector<QuerySpec>& queries() const;
  const std::vector<RouteSpec>& routes() const;
  const std::vector<ListenerSpec>& listeners() const;
  const std::vector<std::string>& factKeywords() const;
  const std::vector<std::string>& startupNotices() const;

  // Events the submitted activities published, in order: (event, payload).
  const std::vector<std::pair<std::string, json::Object>>& published() const;
  // App proofs added by the last submitted activity (its payloads).
  const std::vector<std::string>& appProofs() const;

  // The store, outside any activity: to arrange rows before a call and read them after.
  void write(const std::function<void(Db&)>& fn);
  void read(const std::function<void(Db&)>& fn);

  // The clock handlers read; it moves only when the test moves it.
  void setNowMs(int64_t nowMs);
  void advanceMs(int64_t ms);
  // Who is asking and where. Changes apply to the next call.
  Caller& caller();
  void setOrganizationId(std::string organizationId);
  // What other modules would offer (identity, wallets, ...); empty until the test sets it.
  // The plugin's own hooks (deletion, subscribers, fact providers) are already in it.
  Services& services();
  // The gateway signer's public key (uncompressed P-256 hex) that the harness signs with.
  const std::string& signerPublicKey() const;

  struct State;  // the harness's insides (plugin_harness.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace signet::testkit
