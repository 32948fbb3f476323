// What a client was told is COMPLETED survives the gateway being killed (SIGKILL) in the middle
// of load: a real `signet serve` process on SQLite, eight clients creating wallets and signing
// at once, a kill -9 once some hundreds of activities were answered, then every answered
// activity (and every wallet it created) is checked in the file, which must pass SQLite's
// integrity check, and the restarted gateway serves them. The activity log verifies against a
// checkpoint taken before the load, with every answered activity's completion in it.
//
// A kill keeps what the kernel already holds; a power loss also needs the sync that
// synchronous=FULL makes at every commit, which no test here can cut (docs/durability.md).
#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#include "store/sql_connection.hpp"
#include "support/signet_cli.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

struct Answered {
  std::string activityId;
  std::string walletName;  // empty for a signature
};

TEST(DurabilityTest, EveryAnsweredActivitySurvivesKill9UnderLoad) {
  auto dir =
      (std::filesystem::temp_directory_path() / ("signet-kill-" + crypto::uuidV4())).string();
  ASSERT_EQ(runSignet({"init", "--data-dir", dir, "--plugins", "signing"}).exitCode, 0);
  const auto org = createOrganizationWithCli(dir, "durable");
  const std::string& orgId = org.organizationId;
  auto stamper = ApiKeyStamper::fromHex(org.apiPrivateKey);
  const std::string eth = "ADDRESS_FORMAT_ETHEREUM";

  const std::string checkpoint = dir + "/before-load.note";
  auto cp = runSignet({"log", "checkpoint", "--data-dir", dir, "--out", checkpoint});
  ASSERT_EQ(cp.exitCode, 0) << cp.err;

  auto server = std::make_unique<ServeProcess>(dir);
  Client setup(server->baseUrl(), stamper);
  const std::string address = newEthereumAddress(setup, orgId, "signer");

  std::mutex mutex;
  std::vector<Answered> answered;
  std::atomic<bool> killed{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      Client client(server->baseUrl(), stamper);
      for (int n = 0; n < 2000 && !killed; ++n) {  // bounded; the kill ends it much sooner
        std::string wallet = "w-" + std::to_string(c) + "-" + std::to_string(n);
        char payload[16];
        std::snprintf(payload, sizeof payload, "%02x%06x", c, n);
        try {
          json::Object a =
              n % 2 ? client.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", orgId,
                                    signParams(address, payload, "PAYLOAD_ENCODING_HEXADECIMAL",
                                               "HASH_FUNCTION_KECCAK256"))
                    : client.submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", orgId,
                                    walletParams(wallet, {account("CURVE_SECP256K1",
                                                                  "m/44'/60'/0'/0/0", eth)}));
          if (a->getValue<std::string>("status") != "ACTIVITY_STATUS_COMPLETED") continue;
          std::lock_guard lock(mutex);
          answered.push_back({a->getValue<std::string>("id"), n % 2 ? "" : wallet});
        } catch (const std::exception&) {
          if (killed) return;  // the connection died with the gateway: not answered
          throw;
        }
      }
    });
  }
  // Kill once 400 activities were answered (or after 60 s, whatever came first).
  for (int waited = 0; waited < 6000; ++waited) {
    {
      std::lock_guard lock(mutex);
      if (answered.size() >= 400) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  killed = true;
  server->kill();
  for (auto& t : clients) t.join();
  ASSERT_GE(answered.size(), 400u);

  {
    auto file = openSqlite(dir + "/signet.db");
    EXPECT_EQ(file->queryOne("PRAGMA integrity_check")->str("integrity_check"), "ok");
    size_t lost = 0;
    for (const auto& a : answered) {
      auto row = file->queryOne("SELECT status FROM activities WHERE id = ?", {a.activityId});
      if (!row || row->str("status") != "ACTIVITY_STATUS_COMPLETED") ++lost;
      if (!a.walletName.empty()) {
        EXPECT_EQ(file->queryOne("SELECT COUNT(*) AS n FROM signing_wallets WHERE name = ?",
                                 {a.walletName})
                      ->i64("n"),
                  1)
            << a.walletName;
      }
    }
    EXPECT_EQ(lost, 0u) << "of " << answered.size() << " answered activities";
    size_t unlogged = 0;
    for (const auto& a : answered) {
      auto leaf = file->queryOne(
          "SELECT leaf FROM activity_log_leaves WHERE activity_id = ? ORDER BY idx DESC LIMIT 1",
          {a.activityId});
      if (!leaf ||
          leaf->str("leaf").find("\nstatus ACTIVITY_STATUS_COMPLETED\n") == std::string::npos)
        ++unlogged;
    }
    EXPECT_EQ(unlogged, 0u) << "of " << answered.size() << " answered activities";
  }
  auto verified = runSignet({"log", "verify", "--from", checkpoint, "--data-dir", dir});
  EXPECT_EQ(verified.exitCode, 0) << verified.out << verified.err;

  // The gateway starts again on the file and serves what it answered before the kill.
  ServeProcess again(dir);
  Client client(again.baseUrl(), stamper);
  json::Object query = orgBody(orgId);
  query->set("activityId", answered.back().activityId);
  EXPECT_EQ(
      client.query("get_activity", query)->getObject("activity")->getValue<std::string>("status"),
      "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(again.stop(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
