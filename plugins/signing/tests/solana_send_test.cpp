// Solana sends in real gateways, on SQLite and PostgreSQL, against litesvm behind the JSON-RPC a
// cluster serves (tests/support/solana_node.hpp): blocks are built, a transaction is processed,
// then confirmed, then finalized, and a blockhash lasts 150 blocks. A send succeeds only once
// its transaction is confirmed; one that lands and fails on chain is FAILED with the chain's
// error and its fee paid; one whose blockhash expires before it lands is FAILED when the chain
// passes its last valid block height, not when giveUpSeconds runs out; and a sponsored send
// past its limit is refused before anything reaches the chain.
#include "store/keyring.hpp"
#include "support/signing_fixtures.hpp"
#include "support/solana_node.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

const std::string kChain = "solana:devnet";
constexpr uint64_t kSol = 1'000'000'000;

// A legacy transaction moving `lamports` from `from` to `to` with the System Program, unsigned
// (the worker sets the blockhash and signs): what @solana/web3.js's SystemProgram.transfer
// serializes.
std::string transfer(const std::string& from, const std::string& to, uint64_t lamports) {
  Bytes m{1, 0, 1, 3};  // one signature, no read-only signer, one read-only account; 3 keys
  for (const auto& key : {from, to, std::string("11111111111111111111111111111111")}) {
    Bytes k = *base58Decode(key);
    m.insert(m.end(), k.begin(), k.end());
  }
  m.insert(m.end(), 32, 0);                            // the blockhash, set when the send is signed
  m.insert(m.end(), {1, 2, 2, 0, 1, 12, 2, 0, 0, 0});  // program 2, accounts 0 and 1, 12 bytes
  for (int i = 0; i < 8; ++i) m.push_back(static_cast<uint8_t>(lamports >> (8 * i)));
  Bytes tx{1};
  tx.insert(tx.end(), 64, 0);
  tx.insert(tx.end(), m.begin(), m.end());
  return toHex(tx);
}

class SolanaSendTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    SIGNET_NEED_SOLANA(node_);
    json::Object broadcast = json::parseObject(R"({"allowInsecureUrls": true,
        "timeoutSeconds": 5, "pollIntervalMs": 100, "giveUpSeconds": 600,
        "usdPrice": {"solana:devnet": "150"}})",
                                               "settings");
    json::Object rpc = json::object();
    rpc->set(kChain, node_.url());
    broadcast->set("rpc", rpc);
    json::Object settings = json::object();
    settings->set("broadcast", broadcast);
    gw_ = std::make_unique<TestGateway>(GetParam(), std::vector<std::string>{"signing"},
                                        std::filesystem::path{},
                                        std::map<std::string, json::Object>{{"signing", settings}});
    from_ = resultOf(gw_->rootClient().submit(
                         "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org(),
                         walletParams("w", {account("CURVE_ED25519", "m/44'/501'/0'/0'",
                                                    "ADDRESS_FORMAT_SOLANA")})),
                     "createWalletResult")
                ->getArray("addresses")
                ->getElement<std::string>(0);
    node_.airdrop(from_, 2 * kSol);
    to_ = base58Encode(crypto::publicKeyFromPrivate(
        crypto::Curve::kEd25519, crypto::generatePrivateKey(crypto::Curve::kEd25519)));
  }

  const std::string& org() const { return gw_->root().organizationId; }

  // sol_send_transaction V2; the activity.
  json::Object send(const std::string& unsignedTx, bool sponsor = false) {
    json::Object p = json::object();
    p->set("unsignedTransaction", unsignedTx);
    p->set("signWiths", json::stringArray({from_}));
    p->set("caip2", kChain);
    p->set("sponsor", sponsor);
    return gw_->rootClient().submit("sol_send_transaction", "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
                                    org(), p);
  }
  std::string sendId(const json::Object& activity) {
    return resultOf(activity, "solSendTransactionResultV2")
        ->getValue<std::string>("sendTransactionStatusId");
  }
  json::Object status(const std::string& id) {
    json::Object b = orgBody(org());
    b->set("sendTransactionStatusId", id);
    return gw_->rootClient().query("get_send_transaction_status", b);
  }
  std::string txStatus(const std::string& id) {
    return status(id)->getValue<std::string>("txStatus");
  }
  std::string signatureOf(const std::string& id) {
    return status(id)->getObject("solana")->getValue<std::string>("signature");
  }
  // The send's row: status, tx_error.
  std::pair<std::string, std::string> stored(const std::string& id) {
    std::pair<std::string, std::string> out;
    gw_->write([&](Db& db) {
      auto r = db.queryOne("SELECT status, tx_error FROM signing_sends WHERE id = ?", {id});
      out = {r->str("status"), r->str("tx_error")};
    });
    return out;
  }

  SolanaNode node_;
  std::unique_ptr<TestGateway> gw_;
  std::string from_, to_;
};
SIGNET_BACKEND_SUITE(SolanaSendTest);

TEST_P(SolanaSendTest, ASendIsIncludedOnlyOnceItsTransactionIsConfirmed) {
  node_.pause();  // blocks only when the test builds them
  std::string id = sendId(send(transfer(from_, to_, kSol / 10)));
  ASSERT_TRUE(eventually([&] { return node_.queued() == 1; }));
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "BROADCASTING"; }));
  std::string signature = signatureOf(id);
  node_.advance(1);  // the block it lands in: processed, not yet confirmed
  ASSERT_TRUE(node_.landed(signature));
  // The worker looks at least three times more and waits (a count, not a time).
  int seen = node_.statusCalls(signature);
  ASSERT_TRUE(eventually([&] { return node_.statusCalls(signature) >= seen + 3; }));
  EXPECT_EQ(txStatus(id), "BROADCASTING");
  EXPECT_EQ(stored(id).first, "BROADCASTING");
  node_.advance(1);  // a block built on it: confirmed
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "INCLUDED"; }));
  EXPECT_EQ(stored(id), std::make_pair(std::string("INCLUDED"), std::string()));
  EXPECT_EQ(node_.balance(to_), kSol / 10);
  EXPECT_EQ(node_.balance(from_), 2 * kSol - kSol / 10 - 5000);  // one signature's fee
  auto landed = node_.landed(signature);
  EXPECT_TRUE(landed->isNull("err")) << json::stringify(landed);
}

TEST_P(SolanaSendTest, ATransactionThatLandsAndFailsIsFailedWithTheChainsErrorAndItsFeePaid) {
  // The node runs no preflight simulation (as when its bank passed it and the leader's did not):
  // a transfer of more than the account holds lands, fails, and costs its fee.
  node_.landFailures(true);
  std::string id = sendId(send(transfer(from_, to_, 5 * kSol)));
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "FAILED"; }));
  auto s = status(id);
  EXPECT_NE(s->getValue<std::string>("txError").find("the transaction failed: "), std::string::npos)
      << json::stringify(s);
  EXPECT_NE(s->getValue<std::string>("txError").find(R"({"InstructionError":[0,{"Custom":1}]})"),
            std::string::npos)
      << json::stringify(s);
  auto solana = s->getObject("error")->getObject("solana");
  EXPECT_EQ(solana->getValue<std::string>("source"), "execution");
  EXPECT_EQ(solana->getValue<std::string>("transactionErrorJson"),
            R"({"InstructionError":[0,{"Custom":1}]})");
  EXPECT_EQ(stored(id).first, "FAILED");
  auto landed = node_.landed(signatureOf(id));
  ASSERT_TRUE(landed);
  EXPECT_FALSE(landed->isNull("err"));
  EXPECT_EQ(node_.balance(to_), 0u);
  EXPECT_EQ(node_.balance(from_), 2 * kSol - 5000);
}

TEST_P(SolanaSendTest, AnExpiredBlockhashFailsTheSendWhenTheChainPassesItsLastValidHeight) {
  node_.pause();
  node_.dropTransactions(true);  // the leader never includes it
  std::string id = sendId(send(transfer(from_, to_, kSol / 10)));
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "BROADCASTING"; }));
  std::string signature = signatureOf(id);
  // Within its 150 blocks the worker waits.
  node_.advance(150);
  int seen = node_.statusCalls(signature);
  ASSERT_TRUE(eventually([&] { return node_.statusCalls(signature) >= seen + 3; }));
  EXPECT_EQ(txStatus(id), "BROADCASTING");
  // One block past its last valid height: FAILED, naming the expiry (giveUpSeconds is 600).
  node_.advance(2);
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "FAILED"; }));
  auto s = status(id);
  EXPECT_NE(s->getValue<std::string>("txError").find("its blockhash expired"), std::string::npos)
      << json::stringify(s);
  EXPECT_EQ(s->getObject("error")->getObject("solana")->getValue<std::string>("source"), "expiry");
  EXPECT_EQ(stored(id).first, "FAILED");
  EXPECT_FALSE(node_.landed(signature));
  EXPECT_EQ(node_.balance(from_), 2 * kSol);  // nothing was paid
}

TEST_P(SolanaSendTest, ASponsoredSendPastItsLimitIsRefusedBeforeAnythingReachesTheChain) {
  // The gateway's sponsor key, made as `signet signing create-sponsor --family solana` makes it.
  auto key = crypto::generatePrivateKey(crypto::Curve::kEd25519);
  std::string sponsor = base58Encode(crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, key));
  gw_->write([&](Db& db) {
    DbKeyring(db, gw_->gateway().masterKey()).seal("sponsor-key:solana", "sponsor-key", key);
    db.exec("INSERT INTO signing_sponsors (family, address, created_at_ms) VALUES (?, ?, ?)",
            {std::string("solana"), sponsor, systemNowMs()});
  });
  node_.airdrop(sponsor, kSol);
  // 100 micro-USD a day; one signature's fee at 150 USD a SOL is 750.
  resultOf(gw_->rootClient().submit("upsert_gas_usage_config",
                                    "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG", org(),
                                    json::parseObject(R"({"orgWindowLimitUsd": "0.0001",
                   "subOrgWindowLimitUsd": "0.0001", "windowDurationMinutes": "1440"})",
                                                      "limits")),
           "upsertGasUsageConfigResult");
  std::string id = sendId(send(transfer(from_, to_, kSol / 10), true));
  ASSERT_TRUE(eventually([&] { return txStatus(id) == "FAILED"; }));
  auto s = status(id);
  EXPECT_NE(s->getValue<std::string>("txError").find("orgWindowLimitUsd"), std::string::npos)
      << json::stringify(s);
  EXPECT_FALSE(s->has("solana")) << "nothing was broadcast: " << json::stringify(s);
  EXPECT_EQ(stored(id).first, "FAILED");
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM signing_gas_usage"), 0);
  EXPECT_EQ(node_.queued(), 0);
  EXPECT_EQ(node_.balance(sponsor), kSol);
  EXPECT_EQ(node_.balance(from_), 2 * kSol);
  EXPECT_EQ(node_.balance(to_), 0u);
}

}  // namespace
}  // namespace signet::test
