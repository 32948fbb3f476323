// Solana on loopback for the gateway tests: tests/conformance/solana_rpc.mjs (litesvm behind the
// JSON-RPC a cluster serves, with blocks, confirmation levels and blockhash expiry; see
// tests/conformance/chains.mjs) run as a child process with Node 20 and the conformance
// suite's npm packages. Where those are missing the tests that need it skip, or fail when
// SIGNET_REQUIRE_CHAINS=1 (scripts/test.sh sets it, after installing both).
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

#include <memory>
#include <optional>
#include <string>

#include "signet/json.hpp"

namespace signet::test {

class SolanaNode {
 public:
  // Starts it; `unavailable()` says why it could not.
  SolanaNode();
  ~SolanaNode();
  const std::optional<std::string>& unavailable() const { return unavailable_; }
  static bool required();

  const std::string& url() const { return url_; }
  // The test's own hand on the chain (solana_rpc.mjs lists them).
  void airdrop(const std::string& address, uint64_t lamports);
  uint64_t balance(const std::string& address);
  int64_t advance(int blocks);  // produces that many blocks now; the new block height
  void pause();                 // no blocks but those advance() produces
  void resume();
  void dropTransactions(bool on);  // accepted and never included: their blockhash expires
  void landFailures(bool on);      // no preflight simulation: a failing transaction lands
  int statusCalls(const std::string& signature);      // getSignatureStatuses asking about it
  json::Object landed(const std::string& signature);  // {slot, height, err, fee}, or null
  int queued();                                       // sent and waiting for the next block

 private:
  Poco::Dynamic::Var control(const std::string& method, json::Array params = json::array());

  std::optional<std::string> unavailable_;
  std::string url_, controlUrl_;
  std::unique_ptr<Poco::Pipe> in_, out_;
  std::unique_ptr<Poco::ProcessHandle> process_;
};

// In a test that needs the chain: skips without it, or fails when it is required.
#define SIGNET_NEED_SOLANA(node)                                           \
  do {                                                                     \
    if ((node).unavailable()) {                                            \
      if (::signet::test::SolanaNode::required())                          \
        FAIL() << "SIGNET_REQUIRE_CHAINS=1 but " << *(node).unavailable(); \
      GTEST_SKIP() << *(node).unavailable();                               \
    }                                                                      \
  } while (0)

}  // namespace signet::test
