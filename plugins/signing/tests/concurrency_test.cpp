// Signing under concurrency, through a real gateway whose writes are committed in groups:
// identical bodies sent at once are one activity (on the read-only signing path and on the
// writing wallet path), and among many concurrent activities the failing ones leave nothing
// while all the others complete with their writes.
#include <latch>
#include <thread>

#include "activity/activity_store.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class SigningConcurrencyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SigningConcurrencyTest);

// Runs fn(i) on `n` threads released together.
void together(int n, const std::function<void(int)>& fn) {
  std::latch start(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      fn(i);
    });
  for (auto& t : threads) t.join();
}

TEST_P(SigningConcurrencyTest, IdenticalBodiesSentAtOnceAreOneActivity) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  const std::string address = newEthereumAddress(gw.rootClient(), org, "signer");
  const std::string sign = activityBody(
      "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
      signParams(address, "00ff", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"));
  const std::string wallet = activityBody(
      "ACTIVITY_TYPE_CREATE_WALLET", org,
      walletParams("once",
                   {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM")}));
  constexpr int kSenders = 10;
  std::vector<std::string> signIds(kSenders), walletIds(kSenders);
  together(kSenders, [&](int i) {
    Client client = gw.rootClient();
    try {
      signIds[i] = client.submitRaw("sign_raw_payload", sign)->getValue<std::string>("id");
      walletIds[i] = client.submitRaw("create_wallet", wallet)->getValue<std::string>("id");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "sender " << i << ": " << e.what();
    }
  });
  for (int i = 1; i < kSenders; ++i) {
    EXPECT_EQ(signIds[i], signIds[0]);
    EXPECT_EQ(walletIds[i], walletIds[0]);
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE type = ?",
                     {"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}),
            1);
  // Each signature is decided on a snapshot of its own, where none sees the others: only the
  // first to commit stores its evaluation and MFA presentation, in the activity's row.
  gw.write([&](Db& db) {
    auto row = db.queryOne("SELECT fingerprint FROM activities WHERE id = ?", {signIds[0]});
    auto record = activities::findByFingerprint(db, row->str("fingerprint"));
    EXPECT_EQ(record->evaluations.size(), 1u);
    EXPECT_EQ(record->presentations.size(), 1u);
  });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallets WHERE name = ?", {"once"}), 1);
}

// Twelve wallets and twelve signatures at once. Wallet 5 asks for an account the handler
// refuses after checking the first one, and signature 3 names a key that does not exist: they
// fail, nothing of theirs is stored, and the 22 others complete with their wallets and
// activities.
TEST_P(SigningConcurrencyTest, AmongConcurrentActivitiesAFailureLeavesOnlyItselfOut) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  const std::string address = newEthereumAddress(gw.rootClient(), org, "signer");
  const std::string eth = "ADDRESS_FORMAT_ETHEREUM";
  constexpr int kEach = 12;
  std::vector<std::string> walletStatus(kEach), signStatus(kEach);
  together(2 * kEach, [&](int n) {
    Client client = gw.rootClient();
    int i = n % kEach;
    try {
      if (n < kEach) {
        std::vector<json::Object> accounts = {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", eth)};
        if (i == 5)
          accounts.push_back(account("CURVE_SECP256K1", "m/44'/60'/0'/0/1", "ADDRESS_FORMAT_NOPE"));
        walletStatus[i] = client
                              .submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org,
                                      walletParams("w" + std::to_string(i), accounts))
                              ->getValue<std::string>("status");
      } else {
        std::string signWith = i == 3 ? "0x" + std::string(40, '1') : address;
        char payload[8];
        std::snprintf(payload, sizeof payload, "aa%02x", i);  // distinct bodies
        signStatus[i] = client
                            .submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                                    signParams(signWith, payload, "PAYLOAD_ENCODING_HEXADECIMAL",
                                               "HASH_FUNCTION_KECCAK256"))
                            ->getValue<std::string>("status");
      }
    } catch (const RequestError& e) {
      (n < kEach ? walletStatus : signStatus)[i] = "refused: " + std::string(e.what());
    }
  });
  for (int i = 0; i < kEach; ++i) {
    if (i == 5)
      EXPECT_NE(walletStatus[i], "ACTIVITY_STATUS_COMPLETED");
    else
      EXPECT_EQ(walletStatus[i], "ACTIVITY_STATUS_COMPLETED") << "wallet " << i;
    if (i == 3)
      EXPECT_NE(signStatus[i], "ACTIVITY_STATUS_COMPLETED");
    else
      EXPECT_EQ(signStatus[i], "ACTIVITY_STATUS_COMPLETED") << "signature " << i;
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallets WHERE name = 'w5'"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallets WHERE name LIKE 'w%'"), kEach - 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallet_accounts"), kEach);  // + the signer
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE type = ? AND status = ?",
                     {"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "ACTIVITY_STATUS_COMPLETED"}),
            kEach - 1);
}

}  // namespace
}  // namespace signet::test
