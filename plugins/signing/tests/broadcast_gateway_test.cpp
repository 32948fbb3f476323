// Sending in real gateways over HTTP, on SQLite and PostgreSQL, where no chain can answer: a
// node that takes connections and never replies, and one nobody listens for. What the
// activities check before anything is recorded, how a send waits and then fails with its cause
// (the worker claiming rows as it does on a shared PostgreSQL store), and the gas sponsorship
// configuration. The sends that reach real chains are in tests/conformance/broadcast.test.mjs.
#include <Poco/Net/ServerSocket.h>

#include "broadcast/gas_usage.hpp"
#include "support/auth_fixtures.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

const std::string kChain = "eip155:11155111";
const std::string kClosed = "eip155:84532";

class BroadcastGatewayTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    json::Object rpc = json::object();
    rpc->set(kChain, "http://127.0.0.1:" + std::to_string(silent_.address().port()));
    rpc->set(kClosed, "http://127.0.0.1:9");
    json::Object broadcast = json::object();
    broadcast->set("rpc", rpc);
    broadcast->set("allowInsecureUrls", true);
    broadcast->set("timeoutSeconds", 1);
    broadcast->set("giveUpSeconds", 2);
    broadcast->set("pollIntervalMs", 100);
    json::Object settings = json::object();
    settings->set("broadcast", broadcast);
    gw_ = std::make_unique<TestGateway>(GetParam(), std::vector<std::string>{"signing"},
                                        std::filesystem::path{},
                                        std::map<std::string, json::Object>{{"signing", settings}});
    auto wallet = resultOf(
        gw_->rootClient().submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", gw_->root().organizationId,
            walletParams(
                "w", {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM")})),
        "createWalletResult");
    from_ = wallet->getArray("addresses")->getElement<std::string>(0);
  }

  json::Object send(const std::string& caip2, json::Array calls, bool sponsor = false) {
    json::Object p = json::object();
    p->set("from", from_);
    p->set("caip2", caip2);
    p->set("calls", calls);
    p->set("sponsor", sponsor);
    return gw_->rootClient().submit("eth_send_transaction", "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2",
                                    gw_->root().organizationId, p);
  }

  static json::Array oneCall() {
    json::Object call = json::object();
    call->set("to", "0x1111111111111111111111111111111111111111");
    call->set("value", "1");
    json::Array calls = json::array();
    calls->add(call);
    return calls;
  }

  json::Object status(const std::string& id) {
    json::Object b = orgBody(gw_->root().organizationId);
    b->set("sendTransactionStatusId", id);
    return gw_->rootClient().query("get_send_transaction_status", b);
  }

  // A node that accepts connections and never answers them.
  Poco::Net::ServerSocket silent_{Poco::Net::SocketAddress("127.0.0.1", 0)};
  std::unique_ptr<TestGateway> gw_;
  std::string from_;
};
SIGNET_BACKEND_SUITE(BroadcastGatewayTest);

TEST_P(BroadcastGatewayTest, ASendWaitsForItsNodeThenFailsWithTheCause) {
  std::string silent = resultOf(send(kChain, oneCall()), "ethSendTransactionResultV2")
                           ->getValue<std::string>("sendTransactionStatusId");
  std::string closed = resultOf(send(kClosed, oneCall()), "ethSendTransactionResultV2")
                           ->getValue<std::string>("sendTransactionStatusId");
  EXPECT_EQ(status(silent)->getValue<std::string>("txStatus"), "INITIALIZED");
  auto inFlight = [&] {
    std::string metrics = httpGet(gw_->baseUrl(), "/metrics").body;
    size_t at = metrics.find("\nsignet_signing_sends_in_flight ");
    return at == std::string::npos ? std::string("absent")
                                   : metrics.substr(at + 32, metrics.find('\n', at + 1) - at - 32);
  };
  EXPECT_EQ(inFlight(), "2");
  // While the node is away the last cause is there to see.
  ASSERT_TRUE(eventually([&] { return status(closed)->has("txError"); }));
  EXPECT_EQ(status(closed)->getValue<std::string>("txStatus"), "INITIALIZED");
  ASSERT_TRUE(eventually(
      [&] { return status(silent)->getValue<std::string>("txStatus") == "FAILED"; }, 15000));
  ASSERT_TRUE(eventually(
      [&] { return status(closed)->getValue<std::string>("txStatus") == "FAILED"; }, 15000));
  EXPECT_NE(status(silent)->getValue<std::string>("txError").find("no answer in time"),
            std::string::npos)
      << json::stringify(status(silent));
  EXPECT_NE(status(closed)->getValue<std::string>("txError").find("cannot be reached"),
            std::string::npos)
      << json::stringify(status(closed));
  EXPECT_EQ(inFlight(), "0");
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM signing_sends WHERE signed_tx <> ''"), 0)
      << "nothing was signed for a node that never answered";
}

TEST_P(BroadcastGatewayTest, BadInputIsRefusedNamingTheFieldWithNothingRecorded) {
  auto refused = [&](const std::string& caip2, json::Array calls) {
    return refusalOf([&] { return send(caip2, calls); });
  };
  EXPECT_NE(refused("eip155:1", oneCall()).find("parameters.caip2"), std::string::npos);
  EXPECT_NE(refused("solana:devnet", oneCall()).find("parameters.caip2"), std::string::npos);
  json::Array many = json::array();
  for (int i = 0; i < 51; ++i) many->add(oneCall()->getObject(0));
  EXPECT_NE(refused(kChain, many).find("parameters.calls: 51 calls"), std::string::npos);
  EXPECT_NE(refused(kChain, json::array()).find("parameters.calls"), std::string::npos);
  json::Array badValue = oneCall();
  badValue->getObject(0)->set("value", "-1");
  EXPECT_NE(refused(kChain, badValue).find("parameters.calls[0].value"), std::string::npos);
  from_ = "0x2222222222222222222222222222222222222222";
  EXPECT_NE(refused(kChain, oneCall()).find("parameters.from"), std::string::npos);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM signing_sends"), 0);
}

TEST_P(BroadcastGatewayTest, GasSponsorshipIsConfiguredInTheParentAndReportedPerOrganization) {
  json::Object p = json::object();
  p->set("orgWindowLimitUsd", "100");
  p->set("subOrgWindowLimitUsd", "10.5");
  p->set("windowDurationMinutes", "1440");
  auto upsert = [&](Client& c, const std::string& org, const json::Object& params) {
    return c.submit("upsert_gas_usage_config", "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG", org,
                    params);
  };
  Client root = gw_->rootClient();
  std::string id =
      resultOf(upsert(root, gw_->root().organizationId, p), "upsertGasUsageConfigResult")
          ->getValue<std::string>("gasUsageConfigId");
  // Upserting again keeps the configuration's id.
  p->set("orgWindowLimitUsd", "200");
  EXPECT_EQ(resultOf(upsert(root, gw_->root().organizationId, p), "upsertGasUsageConfigResult")
                ->getValue<std::string>("gasUsageConfigId"),
            id);
  auto usage = root.query("get_gas_usage", orgBody(gw_->root().organizationId));
  EXPECT_EQ(usage->getValue<int>("windowDurationMinutes"), 1440);
  EXPECT_EQ(usage->getValue<std::string>("windowLimitUsd"), "200");
  EXPECT_EQ(usage->getValue<std::string>("usageUsd"), "0");

  auto sub = createSubOrganization(*gw_, "sub@example.com", "+14155550100");
  Client subClient = gw_->clientWith(sub.userKey.stamper);
  auto subUsage = subClient.query("get_gas_usage", orgBody(sub.id));
  EXPECT_EQ(subUsage->getValue<std::string>("windowLimitUsd"), "10.5");
  EXPECT_NE(failureOf(upsert(subClient, sub.id, p)).find("parent organization"), std::string::npos);

  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"windowDurationMinutes", "43201"},
                                                        {"windowDurationMinutes", "0"},
                                                        {"orgWindowLimitUsd", "ten"},
                                                        {"subOrgWindowLimitUsd", "1.0000001"}}) {
    json::Object bad = json::parseObject(json::stringify(p), "copy");
    bad->set(key, value);
    std::string refusal = refusalOf([&] { return upsert(root, gw_->root().organizationId, bad); });
    EXPECT_NE(refusal.find("parameters." + key), std::string::npos) << key << "=" << value;
  }
  // A sponsored send needs the batch executor on its chain: without it the send fails, naming
  // the setting.
  EXPECT_NE(failureOf(send(kChain, oneCall(), true)).find("batch executor"), std::string::npos);
}

// The limits themselves, over usage recorded in the store: the organization's window counts its
// sub-organizations, each sub-organization's only its own, and nothing older than the window.
TEST_P(BroadcastGatewayTest, EachLimitCountsItsOwnWindow) {
  json::Object p = json::object();
  p->set("orgWindowLimitUsd", "100");
  p->set("subOrgWindowLimitUsd", "10");
  p->set("windowDurationMinutes", "60");
  resultOf(
      gw_->rootClient().submit("upsert_gas_usage_config", "ACTIVITY_TYPE_UPSERT_GAS_USAGE_CONFIG",
                               gw_->root().organizationId, p),
      "upsertGasUsageConfigResult");
  const std::string root = gw_->root().organizationId;
  const std::string a = createSubOrganization(*gw_, "a@example.com", "+14155550101").id;
  const std::string b = createSubOrganization(*gw_, "b@example.com", "+14155550102").id;
  int64_t now = systemNowMs();
  auto usd = [](double dollars) { return static_cast<signing::broadcast::Uint128>(dollars * 1e6); };
  auto refusal = [&](const std::string& org, double extra) {
    std::string message = "allowed";
    gw_->write([&](Db& db) {
      try {
        signing::broadcast::requireSponsorship(db, org, root, usd(extra), now);
      } catch (const Error& e) {
        message = e.what();
      }
    });
    return message;
  };
  gw_->write([&](Db& db) {
    signing::broadcast::recordUsage(db, "s1", a, root, usd(9.5), now - 60'000);
    signing::broadcast::recordUsage(db, "s2", root, root, usd(80), now - 60'000);
    signing::broadcast::recordUsage(db, "old", a, root, usd(50), now - 2 * 3'600'000);
  });
  EXPECT_NE(refusal(a, 1).find("subOrgWindowLimitUsd"), std::string::npos);
  EXPECT_EQ(refusal(a, 0.5), "allowed");
  EXPECT_EQ(refusal(b, 10), "allowed");
  EXPECT_NE(refusal(b, 10.4).find("subOrgWindowLimitUsd"), std::string::npos);
  EXPECT_NE(refusal(b, 11).find("orgWindowLimitUsd"), std::string::npos);  // 100.5 in all
  EXPECT_NE(refusal(root, 11).find("orgWindowLimitUsd is 100 USD"), std::string::npos);
  EXPECT_EQ(refusal(root, 10.5), "allowed");
  auto usage = gw_->rootClient().query("get_gas_usage", orgBody(root));
  EXPECT_EQ(usage->getValue<std::string>("usageUsd"), "89.5");
}

}  // namespace
}  // namespace signet::test
