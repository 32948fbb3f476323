// The fiat on-ramp plugin in a real gateway over HTTP, with MoonPay's and Coinbase's APIs stood
// in for on loopback: credentials whose keys arrive encrypted to the gateway and are sealed at
// rest, MoonPay's URL signature checked against MoonPay's published example, Coinbase's session
// tokens under a CDP JWT, both providers' status reports (by refresh and by the worker), every
// kind of bad input refused naming its field with nothing stored, and a provider that cannot be
// reached failing the activity by name.
#include <Poco/URI.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "onramp_providers.hpp"
#include "signet/bundles.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

const std::string kMoonPayPublishable = "pk_test_key";
const std::string kMoonPaySecret = "sk_test_key";
const std::string kCoinbaseKeyId = "organizations/org-1/apiKeys/key-1";
const std::string kWallet = "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae";

// A CDP secret API key's private half as the CDP portal hands it out (EC P-256 PEM), and its
// public key for the stand-in to check JWTs with.
struct CdpKeyPair {
  std::string pem;
  Bytes publicKey;
};
CdpKeyPair newCdpKey() {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  CdpKeyPair pair{std::string(data, static_cast<size_t>(size)), Bytes(65)};
  size_t length = 0;
  EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", pair.publicKey.data(), 65, &length);
  BIO_free(bio);
  EVP_PKEY_free(key);
  return pair;
}

class FiatOnRampTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    providers_ = std::make_unique<OnRampProviders>(kMoonPayPublishable, kMoonPaySecret,
                                                   kCoinbaseKeyId, cdp_.publicKey);
    gw_ = gatewayWith(providers_->url());
  }

  std::unique_ptr<TestGateway> gatewayWith(const std::string& coinbaseApi) {
    json::Object moonpay = json::object();
    moonpay->set("apiUrl", providers_->url());
    json::Object coinbase = json::object();
    coinbase->set("apiUrl", coinbaseApi);
    json::Object settings = json::object();
    settings->set("moonpay", moonpay);
    settings->set("coinbase", coinbase);
    settings->set("allowInsecureUrls", true);
    settings->set("timeoutSeconds", 2);
    settings->set("pollIntervalSeconds", 1);
    return std::make_unique<TestGateway>(
        GetParam(), std::vector<std::string>{"fiat-onramp"}, std::filesystem::path{},
        std::map<std::string, json::Object>{{"fiat-onramp", settings}});
  }

  // What @turnkey/crypto's encryptOnRampSecret makes of `secret` for the published key.
  std::string encrypted(TestGateway& gw, const std::string& secret) {
    auto r = httpGet(gw.baseUrl(), "/.well-known/signet.json");
    auto key = *fromHex(json::parseObject(r.body, "signet.json")
                            ->getValue<std::string>("onRampEncryptionPublicKey"));
    EXPECT_EQ(key.size(), 33u) << "published compressed, as the override argument takes it";
    return bundles::credentialBundle(crypto::uncompressPublicKey(crypto::Curve::kP256, key),
                                     crypto::SecretBytes(toBytes(secret)));
  }

  json::Object moonPayParams(bool sandbox = true, const std::string& secret = kMoonPaySecret) {
    json::Object p = json::object();
    p->set("onrampProvider", "FIAT_ON_RAMP_PROVIDER_MOONPAY");
    p->set("publishableApiKey", kMoonPayPublishable);
    p->set("encryptedSecretApiKey", encrypted(*gw_, secret));
    p->set("sandboxMode", sandbox);
    return p;
  }

  json::Object coinbaseParams() {
    json::Object p = json::object();
    p->set("onrampProvider", "FIAT_ON_RAMP_PROVIDER_COINBASE");
    p->set("projectId", "cdp-project-1");
    p->set("publishableApiKey", "cdp-client-key");
    p->set("encryptedSecretApiKey", encrypted(*gw_, kCoinbaseKeyId));
    p->set("encryptedPrivateApiKey", encrypted(*gw_, cdp_.pem));
    return p;
  }

  json::Object submit(const std::string& path, const json::Object& p) {
    std::string type = "ACTIVITY_TYPE_" + path;
    std::transform(type.begin(), type.end(), type.begin(), ::toupper);
    return gw_->rootClient().submit(path, type, gw_->root().organizationId, p);
  }

  std::string createCredential(const json::Object& p) {
    return resultOf(submit("create_fiat_on_ramp_credential", p), "createFiatOnRampCredentialResult")
        ->getValue<std::string>("fiatOnRampCredentialId");
  }

  json::Object purchase(const std::string& provider = "FIAT_ON_RAMP_PROVIDER_MOONPAY") {
    json::Object p = json::object();
    p->set("onrampProvider", provider);
    p->set("walletAddress", kWallet);
    p->set("network", "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM");
    p->set("cryptoCurrencyCode", "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH");
    p->set("sandboxMode", true);
    return p;
  }

  json::Object init(const json::Object& p) {
    return resultOf(submit("init_fiat_on_ramp", p), "initFiatOnRampResult");
  }

  std::string statusOf(const std::string& transactionId, bool refresh = false) {
    json::Object b = orgBody(gw_->root().organizationId);
    b->set("transactionId", transactionId);
    b->set("refresh", refresh);
    return gw_->rootClient()
        .query("get_onramp_transaction_status", b)
        ->getValue<std::string>("transactionStatus");
  }

  CdpKeyPair cdp_ = newCdpKey();
  std::unique_ptr<OnRampProviders> providers_;
  std::unique_ptr<TestGateway> gw_;
};
SIGNET_BACKEND_SUITE(FiatOnRampTest);

std::map<std::string, std::string> queryOf(const std::string& url) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : Poco::URI(url).getQueryParameters()) out[k] = v;
  return out;
}

TEST_P(FiatOnRampTest, MoonPaySignatureIsMoonPaysPublishedExample) {
  createCredential(moonPayParams());
  auto p = purchase();
  // dev.moonpay.com's example: this URL signed with sk_test_key. The expected value is what
  // MoonPay's own snippet (Node's createHmac over new URL(url).search, base64) prints for it,
  // and what `openssl dgst -sha256 -hmac sk_test_key -binary | base64` prints for its query.
  p->set("urlForSignature",
         "https://buy-sandbox.moonpay.com?apiKey=pk_test_key&currencyCode=eth&walletAddress="
         "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae");
  auto r = init(p);
  EXPECT_EQ(r->getValue<std::string>("onRampUrlSignature"),
            "o1eO2arzL16TstEolGakHHFa33Mb61RCTfqToRWg7PA=");
}

TEST_P(FiatOnRampTest, MoonPayWidgetUrlCarriesThePurchaseAndItsOwnSignature) {
  createCredential(moonPayParams());
  auto p = purchase();
  p->set("network", "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE");
  p->set("cryptoCurrencyCode", "FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC");
  p->set("fiatCurrencyCode", "FIAT_ON_RAMP_CURRENCY_EUR");
  p->set("fiatCurrencyAmount", "150");
  p->set("paymentMethod", "FIAT_ON_RAMP_PAYMENT_METHOD_SEPA_BANK_TRANSFER");
  auto r = init(p);
  EXPECT_FALSE(r->has("onRampUrlSignature")) << "only for urlForSignature";
  std::string url = r->getValue<std::string>("onRampUrl");
  std::string id = r->getValue<std::string>("onRampTransactionId");
  EXPECT_EQ(url.rfind("https://buy-sandbox.moonpay.com?", 0), 0u) << url;
  auto q = queryOf(url);
  EXPECT_EQ(q["apiKey"], kMoonPayPublishable);
  EXPECT_EQ(q["currencyCode"], "usdc_base");
  EXPECT_EQ(q["walletAddress"], kWallet);
  EXPECT_EQ(q["externalTransactionId"], id);
  EXPECT_EQ(q["baseCurrencyCode"], "eur");
  EXPECT_EQ(q["baseCurrencyAmount"], "150");
  EXPECT_EQ(q["paymentMethod"], "sepa_bank_transfer");
  // The signature MoonPay checks: over the query before it, under the secret key.
  size_t at = url.find("&signature=");
  ASSERT_NE(at, std::string::npos);
  auto mac = crypto::hmacSha256(toBytes(kMoonPaySecret),
                                reinterpret_cast<const uint8_t*>(url.data() + url.find('?')),
                                at - url.find('?'));
  EXPECT_EQ(q["signature"], base64Encode(mac.data(), mac.size()));
  EXPECT_EQ(statusOf(id), "PENDING");
}

TEST_P(FiatOnRampTest, CredentialsAreListedAsSentAndTheirKeysSealed) {
  auto params = moonPayParams(false);
  std::string id = createCredential(params);
  auto list = gw_->rootClient()
                  .query("list_fiat_on_ramp_credentials", orgBody(gw_->root().organizationId))
                  ->getArray("fiatOnRampCredentials");
  ASSERT_EQ(list->size(), 1u);
  auto c = list->getObject(0);
  EXPECT_EQ(c->getValue<std::string>("fiatOnrampCredentialId"), id);
  EXPECT_EQ(c->getValue<std::string>("organizationId"), gw_->root().organizationId);
  EXPECT_EQ(c->getValue<std::string>("onrampProvider"), "FIAT_ON_RAMP_PROVIDER_MOONPAY");
  EXPECT_EQ(c->getValue<std::string>("publishableApiKey"), kMoonPayPublishable);
  EXPECT_EQ(c->getValue<std::string>("encryptedSecretApiKey"),
            params->getValue<std::string>("encryptedSecretApiKey"));
  EXPECT_FALSE(c->getValue<bool>("sandboxMode"));
  EXPECT_TRUE(c->has("createdAt") && c->has("updatedAt"));
  // The opened key is in the keyring only, sealed: no stored text holds it.
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?", {id + ":secret"}), 1);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_credentials WHERE "
                       "encrypted_secret_api_key LIKE '%sk_test%' OR publishable_api_key LIKE "
                       "'%sk_test%'"),
            0);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM activities WHERE intent LIKE '%sk_test_key%'"), 0);
}

TEST_P(FiatOnRampTest, UpdateReplacesTheKeyAndDeleteForgetsIt) {
  std::string id = createCredential(moonPayParams());
  // A key MoonPay does not know: status reads are refused by it.
  auto update = moonPayParams(true, "sk_wrong");
  update->set("fiatOnrampCredentialId", id);
  resultOf(submit("update_fiat_on_ramp_credential", update), "updateFiatOnRampCredentialResult");
  std::string tx = init(purchase())->getValue<std::string>("onRampTransactionId");
  EXPECT_THROW(statusOf(tx, true), RequestError);
  EXPECT_EQ(providers_->refusals().back(), "MoonPay: wrong secret key");
  // Back to the right key: the refresh reaches MoonPay and reads its report.
  auto fix = moonPayParams(true);
  fix->set("fiatOnrampCredentialId", id);
  resultOf(submit("update_fiat_on_ramp_credential", fix), "updateFiatOnRampCredentialResult");
  providers_->report(tx, "completed");
  EXPECT_EQ(statusOf(tx, true), "COMPLETED");

  json::Object del = json::object();
  del->set("fiatOnrampCredentialId", id);
  auto deleted =
      resultOf(submit("delete_fiat_on_ramp_credential", del), "deleteFiatOnRampCredentialResult");
  EXPECT_EQ(deleted->getValue<std::string>("fiatOnRampCredentialId"), id);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM signet_secrets WHERE id LIKE ?", {id + "%"}), 0);
  std::string refused = refusalOf([&] { return submit("init_fiat_on_ramp", purchase()); });
  EXPECT_NE(refused.find("parameters.onrampProvider"), std::string::npos) << refused;
  refused = refusalOf([&] { return submit("delete_fiat_on_ramp_credential", del); });
  EXPECT_NE(refused.find(id), std::string::npos) << refused;
}

TEST_P(FiatOnRampTest, CoinbaseSessionTokenUnderACdpJwtAndItsStatusReports) {
  createCredential(coinbaseParams());
  auto p = purchase("FIAT_ON_RAMP_PROVIDER_COINBASE");
  p->set("sandboxMode", false);
  p->set("network", "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_BASE");
  p->set("cryptoCurrencyCode", "FIAT_ON_RAMP_CRYPTO_CURRENCY_USDC");
  p->set("fiatCurrencyCode", "FIAT_ON_RAMP_CURRENCY_USD");
  p->set("fiatCurrencyAmount", "50");
  p->set("paymentMethod", "FIAT_ON_RAMP_PAYMENT_METHOD_CREDIT_DEBIT_CARD");
  p->set("countryCode", "US");
  p->set("countrySubdivisionCode", "NY");
  auto r = init(p);
  EXPECT_TRUE(providers_->refusals().empty());
  auto tokens = providers_->issuedTokens();
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].address, kWallet);
  EXPECT_EQ(tokens[0].blockchain, "base");
  EXPECT_EQ(tokens[0].asset, "USDC");
  std::string url = r->getValue<std::string>("onRampUrl");
  std::string id = r->getValue<std::string>("onRampTransactionId");
  EXPECT_EQ(url.rfind("https://pay.coinbase.com/buy/select-asset?", 0), 0u) << url;
  auto q = queryOf(url);
  EXPECT_EQ(q["sessionToken"], tokens[0].token);
  EXPECT_EQ(q["defaultNetwork"], "base");
  EXPECT_EQ(q["defaultAsset"], "USDC");
  EXPECT_EQ(q["partnerUserId"], id);
  EXPECT_EQ(q["presetFiatAmount"], "50");
  EXPECT_EQ(q["fiatCurrency"], "USD");
  EXPECT_EQ(q["defaultPaymentMethod"], "CARD");

  EXPECT_EQ(statusOf(id, true), "PENDING") << "Coinbase knows nothing of it yet";
  providers_->report(id, "ONRAMP_TRANSACTION_STATUS_FAILED");
  EXPECT_EQ(statusOf(id, true), "FAILED");
  // The refresh's answer is stored: a plain read says the same once the worker wrote it.
  EXPECT_TRUE(eventually([&] { return statusOf(id) == "FAILED"; }));
  EXPECT_TRUE(providers_->refusals().empty());
}

TEST_P(FiatOnRampTest, TwoIdenticalCoinbasePurchasesAtOnceEachGetATokenOfTheirOwn) {
  // The two handlers are lined up behind a write held open until both preparers hold their
  // token: SQLite's one writer does that; on PostgreSQL batches run side by side.
  if (GetParam() == Backend::kPostgres) GTEST_SKIP() << "needs SQLite's single write lane";
  createCredential(coinbaseParams());
  auto p = purchase("FIAT_ON_RAMP_PROVIDER_COINBASE");
  p->set("sandboxMode", false);
  json::Object first, second;
  std::string errors;
  std::mutex errorsMutex;
  auto submitInto = [&](json::Object& out) {
    try {
      out = submit("init_fiat_on_ramp", p);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(errorsMutex);
      errors += e.what();
    }
  };
  std::thread one, two;
  gw_->write([&](Db&) {
    // The same purchase twice, not the same request: the client's stamps' times differ.
    one = std::thread(submitInto, std::ref(first));
    two = std::thread(submitInto, std::ref(second));
    // Each preparer keeps its token once Coinbase's answer is read, microseconds after the
    // stand-in counts it: 200 ms is the margin. Were it short, the test would pass on the old
    // Handoff too, never fail on the new one.
    EXPECT_TRUE(eventually([&] { return providers_->issuedTokens().size() == 2; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  for (auto* t : {&one, &two})
    if (t->joinable()) t->join();
  ASSERT_EQ(errors, "");
  ASSERT_EQ(status(first), kCompleted) << failureOf(first);
  ASSERT_EQ(status(second), kCompleted) << failureOf(second);
  EXPECT_NE(first->getValue<std::string>("id"), second->getValue<std::string>("id"));
  auto tokenOf = [&](const json::Object& a) {
    auto result = resultOf(a, "initFiatOnRampResult");
    return queryOf(result->getValue<std::string>("onRampUrl"))["sessionToken"];
  };
  EXPECT_NE(tokenOf(first), tokenOf(second));
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_transactions"), 2);
}

TEST_P(FiatOnRampTest, TheWorkerFollowsPendingPurchases) {
  createCredential(moonPayParams());
  std::string done = init(purchase())->getValue<std::string>("onRampTransactionId");
  std::string failed = init(purchase())->getValue<std::string>("onRampTransactionId");
  std::string waiting = init(purchase())->getValue<std::string>("onRampTransactionId");
  providers_->report(done, "completed");
  providers_->report(failed, "failed");
  providers_->report(waiting, "waitingAuthorization");
  ASSERT_TRUE(eventually([&] { return statusOf(done) == "COMPLETED"; }));
  ASSERT_TRUE(eventually([&] { return statusOf(failed) == "FAILED"; }));
  EXPECT_EQ(statusOf(waiting), "PENDING");
  // A final status is not asked about again: while the worker asks twice more about the
  // pending one, the two final ones get no request (their counts are taken once each is final).
  const int doneAsked = providers_->statusRequestsFor(done);
  const int failedAsked = providers_->statusRequestsFor(failed);
  const int waitingAsked = providers_->statusRequestsFor(waiting);
  EXPECT_GE(doneAsked, 1);
  EXPECT_GE(failedAsked, 1);
  ASSERT_TRUE(
      eventually([&] { return providers_->statusRequestsFor(waiting) >= waitingAsked + 2; }));
  EXPECT_EQ(providers_->statusRequestsFor(done), doneAsked);
  EXPECT_EQ(providers_->statusRequestsFor(failed), failedAsked);
  // And the store says what the providers said, each row where it belongs.
  auto stored = [&](const std::string& id) {
    std::string status;
    gw_->write([&](Db& db) {
      status = db.queryOne("SELECT status FROM fiat_onramp_transactions WHERE id = ?", {id})
                   ->str("status");
    });
    return status;
  };
  EXPECT_EQ(stored(done), "COMPLETED");
  EXPECT_EQ(stored(failed), "FAILED");
  EXPECT_EQ(stored(waiting), "PENDING");
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_transactions"), 3);
}

TEST_P(FiatOnRampTest, ACoinbaseThatCannotBeReachedFailsTheActivityNamingIt) {
  // Port 9 (discard) on loopback, which nothing serves here: the connection is refused.
  gw_ = gatewayWith("http://127.0.0.1:9");
  createCredential(coinbaseParams());
  auto p = purchase("FIAT_ON_RAMP_PROVIDER_COINBASE");
  p->set("sandboxMode", false);
  auto a = submit("init_fiat_on_ramp", p);
  EXPECT_EQ(status(a), kFailed);
  EXPECT_NE(failureOf(a).find("Coinbase"), std::string::npos) << failureOf(a);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_transactions"), 0);
}

TEST_P(FiatOnRampTest, BadInputIsRefusedNamingTheFieldWithNothingStored) {
  createCredential(moonPayParams());
  auto with = [&](const std::string& key, const std::string& value) {
    auto p = purchase();
    p->set(key, value);
    return refusalOf([&] { return submit("init_fiat_on_ramp", p); });
  };
  struct Case {
    std::string key, value, named;
  };
  for (const auto& c : std::vector<Case>{
           {"network", "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_TRON", "parameters.network"},
           {"cryptoCurrencyCode", "FIAT_ON_RAMP_CRYPTO_CURRENCY_DOGE",
            "parameters.cryptoCurrencyCode"},
           {"cryptoCurrencyCode", "FIAT_ON_RAMP_CRYPTO_CURRENCY_BTC",
            "parameters.cryptoCurrencyCode"},
           {"fiatCurrencyCode", "FIAT_ON_RAMP_CURRENCY_XYZ", "parameters.fiatCurrencyCode"},
           {"fiatCurrencyAmount", "20", "parameters.fiatCurrencyAmount"},
           {"fiatCurrencyAmount", "1e3", "parameters.fiatCurrencyAmount"},
           {"paymentMethod", "FIAT_ON_RAMP_PAYMENT_METHOD_CHEQUE", "parameters.paymentMethod"},
           {"paymentMethod", "FIAT_ON_RAMP_PAYMENT_METHOD_CRYPTO_ACCOUNT",
            "parameters.paymentMethod"},
           {"countryCode", "US", "parameters.countrySubdivisionCode"},
           {"onrampProvider", "FIAT_ON_RAMP_PROVIDER_ALPHA", "parameters.onrampProvider"},
           {"urlForSignature", "https://attacker.example/?apiKey=x", "parameters.urlForSignature"},
           {"walletAddress", "", "parameters.walletAddress"},
           {"walletAddress", std::string(129, 'a'), "parameters.walletAddress"},
           {"walletAddress", "0xab\ncd", "parameters.walletAddress"},
       }) {
    std::string refused = with(c.key, c.value);
    EXPECT_NE(refused.find(c.named), std::string::npos)
        << c.key << "=" << c.value << ": " << refused;
  }
  // Types and missing fields (the row's shape): a 400 naming the field, nothing stored.
  auto typed = [&](const std::string& key, const Poco::Dynamic::Var& value) {
    auto p = purchase();
    p->set(key, value);
    return refusalOf([&] { return submit("init_fiat_on_ramp", p); });
  };
  EXPECT_NE(typed("sandboxMode", "yes").find("parameters.sandboxMode"), std::string::npos);
  EXPECT_NE(typed("walletAddress", 42).find("parameters.walletAddress"), std::string::npos);
  EXPECT_NE(typed("fiatCurrencyAmount", 100).find("parameters.fiatCurrencyAmount"),
            std::string::npos);
  auto missing = purchase();
  missing->remove("network");
  EXPECT_NE(
      refusalOf([&] { return submit("init_fiat_on_ramp", missing); }).find("parameters.network"),
      std::string::npos);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_transactions"), 0);

  auto credential = [&](const std::function<void(json::Object&)>& change) {
    auto p = coinbaseParams();
    change(p);
    return refusalOf([&] { return submit("create_fiat_on_ramp_credential", p); });
  };
  EXPECT_NE(
      credential([](json::Object& p) { p->remove("projectId"); }).find("parameters.projectId"),
      std::string::npos);
  EXPECT_NE(credential([&](json::Object& p) {
              p->set("encryptedPrivateApiKey", encrypted(*gw_, "not a key"));
            }).find("parameters.encryptedPrivateApiKey"),
            std::string::npos);
  EXPECT_NE(credential([](json::Object& p) {
              p->set("encryptedSecretApiKey", "3yZe7d");  // not sealed to this gateway
            }).find("parameters.encryptedSecretApiKey"),
            std::string::npos);
  EXPECT_EQ(gw_->count("SELECT COUNT(*) FROM fiat_onramp_credentials"), 1);
}

}  // namespace
}  // namespace signet::test
