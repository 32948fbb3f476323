// The signing plugin's handlers and per-activity policy facts through the plugin test kit: a
// wallet made by create_wallet on a real SQLite store (its seed sealed in the keyring), then
// the facts each activity's row gives policies, and a refused signing that changes nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "signet/testkit.hpp"

namespace {

using namespace signet;
using testkit::PluginHarness;

json::Object parse(const std::string& text) {
  return json::parseObject(text, "test");
}

struct Wallet {
  std::string id;
  std::string address;
};

Wallet createEthereumWallet(PluginHarness& harness, const std::string& name) {
  auto result = harness.submit("ACTIVITY_TYPE_CREATE_WALLET", parse(R"({"walletName":")" + name +
                                                                    R"(","accounts":[{
      "curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32",
      "path":"m/44'/60'/0'/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]})"));
  return {result->getValue<std::string>("walletId"),
          result->getArray("addresses")->getElement<std::string>(0)};
}

TEST(SigningHandlers, EachActivityRowGivesItsOwnFacts) {
  PluginHarness harness(signet_plugin_register);
  Wallet treasury = createEthereumWallet(harness, "treasury");
  Wallet ops = createEthereumWallet(harness, "ops");
  EXPECT_EQ(treasury.address.substr(0, 2), "0x");

  // Signing with an account: the wallet and the account.
  auto signing = harness.facts("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                               parse(R"({"signWith":")" + treasury.address + R"(",
      "payload":"00","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",
      "hashFunction":"HASH_FUNCTION_KECCAK256"})"));
  EXPECT_EQ(signing->getObject("wallet")->getValue<std::string>("id"), treasury.id);
  EXPECT_EQ(signing->getObject("wallet")->getValue<std::string>("label"), "treasury");
  EXPECT_EQ(signing->getObject("wallet_account")->getValue<std::string>("address"),
            treasury.address);
  EXPECT_FALSE(signing->has("eth"));  // no typed data

  // Typed data adds eth.eip_712.
  auto typed = harness.facts("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                             parse(R"({"signWith":")" + treasury.address + R"(",
      "payload":"{\"types\":{\"EIP712Domain\":[{\"name\":\"name\",\"type\":\"string\"}],\"Mail\":[{\"name\":\"note\",\"type\":\"string\"}]},\"primaryType\":\"Mail\",\"domain\":{\"name\":\"Ether Mail\"},\"message\":{\"note\":\"hi\"}}",
      "encoding":"PAYLOAD_ENCODING_EIP712","hashFunction":"HASH_FUNCTION_NO_OP"})"));
  auto eip712 = typed->getObject("eth")->getObject("eip_712");
  EXPECT_EQ(eip712->getValue<std::string>("primary_type"), "Mail");
  EXPECT_EQ(eip712->getObject("domain")->getValue<std::string>("name"), "Ether Mail");

  // One wallet by id, several by ids, an account by address.
  auto one = harness.facts("ACTIVITY_TYPE_EXPORT_WALLET",
                           parse(R"({"walletId":")" + ops.id + R"(","targetPublicKey":"04"})"));
  EXPECT_EQ(one->getObject("wallet")->getValue<std::string>("label"), "ops");
  auto several = harness.facts(
      "ACTIVITY_TYPE_DELETE_WALLETS",
      parse(R"({"walletIds":[")" + treasury.id + R"(",")" + ops.id + R"(","no-such-wallet"]})"));
  EXPECT_EQ(several->getArray("wallets")->size(), 2u);
  auto account = harness.facts("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
                               parse(R"({"address":")" + ops.address + R"("})"));
  EXPECT_EQ(account->getObject("wallet")->getValue<std::string>("id"), ops.id);

  // Rows without facts give none; facts that cannot be read are left out, not thrown.
  EXPECT_EQ(harness.facts("ACTIVITY_TYPE_CREATE_WALLET", parse("{}"))->size(), 0u);
  EXPECT_EQ(harness
                .facts("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                       parse(R"({"signWith":"0xunknown","payload":"{",
                                    "encoding":"PAYLOAD_ENCODING_EIP712"})"))
                ->size(),
            0u);
  EXPECT_EQ(harness.factKeywords().front(), "wallet");
}

TEST(SigningHandlers, SigningWithAnUnknownKeyIsRefusedAndChangesNothing) {
  PluginHarness harness(signet_plugin_register);
  Wallet w = createEthereumWallet(harness, "w");
  auto count = [&] {
    size_t n = 0;
    harness.read([&](Db& db) {
      n = static_cast<size_t>(db.queryOne("SELECT COUNT(*) AS n FROM signet_secrets")->i64("n")) +
          static_cast<size_t>(
              db.queryOne("SELECT COUNT(*) AS n FROM signing_wallet_accounts")->i64("n"));
    });
    return n;
  };
  size_t before = count();
  EXPECT_GT(before, 0u);  // the wallet's seed is sealed in the keyring, its account stored
  try {
    harness.submit("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                   parse(R"({"signWith":"0x000000000000000000000000000000000000dEaD",
                             "payload":"00","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",
                             "hashFunction":"HASH_FUNCTION_KECCAK256"})"));
    FAIL() << "signed with a key the organization does not have";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kNotFound) << e.what();
    EXPECT_NE(std::string(e.what()).find("signWith"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count(), before);

  // The same payload with the wallet's account signs: r, s and v come back.
  auto signature = harness.submit("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                                  parse(R"({"signWith":")" + w.address + R"(",
                             "payload":"00","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",
                             "hashFunction":"HASH_FUNCTION_KECCAK256"})"));
  EXPECT_EQ(signature->getValue<std::string>("r").size(), 64u);
  EXPECT_EQ(signature->getValue<std::string>("s").size(), 64u);
}

// Run as the gateway runs it for a user whom policies govern, an activity's facts locate the key
// signWith names and parse the transaction; the handler takes both from the request cache they
// share, so the key's row is read once per activity, not once by the facts and again to sign.
TEST(SigningHandlers, TheHandlerReusesTheKeyItsFactsLocated) {
  PluginHarness harness(signet_plugin_register);
  Wallet w = createEthereumWallet(harness, "w");
  auto lookups = [&] {
    return std::count_if(harness.statements().begin(), harness.statements().end(),
                         [](const std::string& sql) {
                           return sql.find("FROM signing_wallet_accounts") != std::string::npos;
                         });
  };
  auto raw = parse(R"({"signWith":")" + w.address + R"(",
      "payload":"00","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",
      "hashFunction":"HASH_FUNCTION_KECCAK256"})");
  auto decided = harness.submitAfterFacts("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", raw);
  EXPECT_EQ(decided.facts->getObject("wallet_account")->getValue<std::string>("address"),
            w.address);
  EXPECT_EQ(decided.result->getValue<std::string>("r").size(), 64u);
  EXPECT_EQ(lookups(), 1);
  // Without facts (a root quorum skips policies) the handler locates the key itself.
  harness.submit("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", raw);
  EXPECT_EQ(lookups(), 1);

  // An EIP-1559 transfer to 0xaa..aa on chain 1: the facts' parse is the one signed.
  std::string tx =
      "02e8018084"
      "3b9aca00"
      "8506fc23ac00"
      "825208"
      "94" +
      std::string(40, 'a') + "8080c0";
  auto signedTx = harness.submitAfterFacts(
      "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      parse(R"({"signWith":")" + w.address + R"(","unsignedTransaction":")" + tx +
            R"(","type":"TRANSACTION_TYPE_ETHEREUM"})"));
  EXPECT_EQ(signedTx.facts->getObject("eth")->getObject("tx")->getValue<std::string>("to"),
            "0x" + std::string(40, 'a'));
  EXPECT_EQ(signedTx.result->getValue<std::string>("signedTransaction").substr(0, 2), "02");
  EXPECT_EQ(lookups(), 1);
}

// The key signWith names comes with its target: its sealed cells are read by the target's own
// statement, so a signature opens its key without a keyring read of its own (on PostgreSQL, a
// round trip). So for a wallet account's address, a private key's address and a private key's id.
TEST(SigningHandlers, ASignatureReadsItsSealedKeyWithItsTarget) {
  PluginHarness harness(signet_plugin_register);
  Wallet w = createEthereumWallet(harness, "w");
  auto created = harness.submit("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", parse(R"({"privateKeys":[{
      "privateKeyName":"k","curve":"CURVE_SECP256K1","privateKeyTags":[],
      "addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]})"));
  auto key = created->getArray("privateKeys")->getObject(0);
  const std::string keyId = key->getValue<std::string>("privateKeyId");
  const std::string keyAddress =
      key->getArray("addresses")->getObject(0)->getValue<std::string>("address");
  for (const std::string& signWith : {w.address, keyAddress, keyId}) {
    auto decided = harness.submitAfterFacts("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
                                            parse(R"({"signWith":")" + signWith + R"(",
        "payload":"00","encoding":"PAYLOAD_ENCODING_HEXADECIMAL",
        "hashFunction":"HASH_FUNCTION_KECCAK256"})"));
    EXPECT_EQ(decided.result->getValue<std::string>("r").size(), 64u) << signWith;
    std::vector<std::string> keyring;
    for (const auto& sql : harness.statements())
      if (sql.find("signet_secrets") != std::string::npos) keyring.push_back(sql);
    ASSERT_EQ(keyring.size(), 1u) << signWith;
    EXPECT_NE(keyring[0].find("FROM signing_wallet_accounts"), std::string::npos) << keyring[0];
  }
}

}  // namespace
