// Every plugin's objects, named by another tenant: organization A holds one of each (a fiat
// on-ramp credential and purchase, an auth proxy configuration, a webhook endpoint, an OAuth 2.0
// credential, a smart-contract interface, a session profile, an MFA policy, a wallet, a private
// key and its tag), and organization B, with its own root key and in its own organization, names
// A's ids in every operation that takes one. Each attempt is refused with the refusal it should
// get, B's lists hold none of A's ids, and a fingerprint of the whole store (every table) is the
// same before and after, apart from B's own refused activities, which are checked to be B's and
// FAILED. cross_tenant_test.cpp covers the other direction: a key of another tenant refused at
// the door.
#include "signet/bundles.hpp"
#include "signet/quorum_envelope.hpp"
#include "support/auth_fixtures.hpp"
#include "support/signing_fixtures.hpp"
#include "support/store_fingerprint.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class CrossTenantObjectsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(CrossTenantObjectsTest);

std::map<std::string, json::Object> pluginSettings() {
  return {
      {"webhooks", json::parseObject(R"({"allowInsecureUrls": true})", "webhooks")},
      // No polling: A's pending purchase must not change while the test runs.
      {"fiat-onramp", json::parseObject(R"({"pollIntervalSeconds": 0})", "fiat-onramp")},
      {"auth-proxy", json::parseObject(R"({"listen": "127.0.0.1:0"})", "auth-proxy")},
  };
}

json::Object wellKnown(TestGateway& gw) {
  return json::parseObject(httpGet(gw.baseUrl(), "/.well-known/signet.json").body, "signet.json");
}

// A's objects, each made through the API by A's root user.
struct ObjectsOfA {
  std::string org, rootUserId, apiKeyId;
  std::string onrampCredential, onrampTransaction;
  std::string proxyConfig;
  std::string webhookEndpoint;
  std::string oauth2Credential;
  std::string contractInterface;
  std::string sessionProfile;
  std::string mfaPolicy;
  std::string walletId, walletAddress, walletAccountId, privateKeyId, privateKeyAddress,
      privateKeyTag;
  std::string activityId;

  std::vector<std::string> ids() const {
    return {onrampCredential,  onrampTransaction, proxyConfig,   webhookEndpoint, oauth2Credential,
            contractInterface, sessionProfile,    mfaPolicy,     walletId,        walletAddress,
            privateKeyId,      privateKeyAddress, privateKeyTag, activityId,      apiKeyId};
  }
};

json::Object params(const std::string& text) {
  return json::parseObject(text, "test parameters");
}

ObjectsOfA makeObjectsOfA(TestGateway& gw) {
  ObjectsOfA a;
  a.org = gw.root().organizationId;
  a.rootUserId = gw.root().userId;
  Client root = gw.rootClient();
  auto run = [&](const std::string& path, const std::string& type, const json::Object& p,
                 const std::string& resultKey) {
    return resultOf(root.submit(path, type, a.org, p), resultKey);
  };
  auto published = wellKnown(gw);

  auto onRampKey = *fromHex(published->getValue<std::string>("onRampEncryptionPublicKey"));
  json::Object credential = json::object();
  credential->set("onrampProvider", "FIAT_ON_RAMP_PROVIDER_MOONPAY");
  credential->set("publishableApiKey", "pk_test_a");
  credential->set(
      "encryptedSecretApiKey",
      bundles::credentialBundle(crypto::uncompressPublicKey(crypto::Curve::kP256, onRampKey),
                                crypto::SecretBytes(toBytes(std::string("sk_test_a")))));
  credential->set("sandboxMode", true);
  a.onrampCredential =
      run("create_fiat_on_ramp_credential", "ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL",
          credential, "createFiatOnRampCredentialResult")
          ->getValue<std::string>("fiatOnRampCredentialId");
  a.onrampTransaction = run("init_fiat_on_ramp", "ACTIVITY_TYPE_INIT_FIAT_ON_RAMP",
                            params(R"({"onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY",
                     "walletAddress": "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae",
                     "network": "FIAT_ON_RAMP_BLOCKCHAIN_NETWORK_ETHEREUM",
                     "cryptoCurrencyCode": "FIAT_ON_RAMP_CRYPTO_CURRENCY_ETH",
                     "fiatCurrencyCode": "FIAT_ON_RAMP_CURRENCY_USD", "fiatCurrencyAmount": "100",
                     "sandboxMode": true})"),
                            "initFiatOnRampResult")
                            ->getValue<std::string>("onRampTransactionId");

  a.proxyConfig = run("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", json::object(),
                      "enableAuthProxyResult")
                      ->getValue<std::string>("configId");

  // No subscription: no delivery is queued, so nothing moves in the background.
  a.webhookEndpoint = run("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
                          params(R"({"name": "a's receiver", "url": "http://127.0.0.1:9/a"})"),
                          "createWebhookEndpointResult")
                          ->getValue<std::string>("endpointId");

  auto secretKey = *fromHex(published->getValue<std::string>("clientSecretEncryptionPublicKey"));
  std::string secret = "a's client secret";
  json::Object oauth2 = json::object();
  oauth2->set("provider", "OAUTH2_PROVIDER_DISCORD");
  oauth2->set("clientId", "a-client");
  oauth2->set("encryptedClientSecret",
              toHex(quorum_envelope::seal(
                  secretKey, reinterpret_cast<const uint8_t*>(secret.data()), secret.size())));
  a.oauth2Credential = run("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                           oauth2, "createOauth2CredentialResult")
                           ->getValue<std::string>("oauth2CredentialId");

  a.contractInterface =
      run("create_smart_contract_interface", "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
          params(R"({"smartContractAddress": "0x1111111111111111111111111111111111111111",
                     "smartContractInterface": "[]", "label": "a's abi",
                     "type": "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM"})"),
          "createSmartContractInterfaceResult")
          ->getValue<std::string>("smartContractInterfaceId");

  a.sessionProfile = run("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
                         params(R"({"sessionProfileName": "a's desk", "scope": "true"})"),
                         "createSessionProfileResult")
                         ->getValue<std::string>("sessionProfileId");

  json::Object mfa = params(R"({"mfaPolicyName": "a's factors", "condition": "true",
      "requiredAuthenticationMethods": [{"any": [{"type": "AUTHENTICATION_TYPE_API_KEY"}]}],
      "order": "1"})");
  mfa->set("userId", a.rootUserId);
  a.mfaPolicy =
      run("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", mfa, "createMfaPolicyResult")
          ->getValue<std::string>("mfaPolicyId");

  auto wallet =
      run("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
          walletParams("a's wallet",
                       {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM")}),
          "createWalletResult");
  a.walletId = wallet->getValue<std::string>("walletId");
  a.walletAddress = wallet->getArray("addresses")->getElement<std::string>(0);
  json::Object accounts = orgBody(a.org);
  accounts->set("walletId", a.walletId);
  a.walletAccountId = root.query("list_wallet_accounts", accounts)
                          ->getArray("accounts")
                          ->getObject(0)
                          ->getValue<std::string>("walletAccountId");
  auto key = run("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
                 params(R"({"privateKeys": [{"privateKeyName": "a's key",
                    "curve": "CURVE_SECP256K1", "privateKeyTags": [],
                    "addressFormats": ["ADDRESS_FORMAT_ETHEREUM"]}]})"),
                 "createPrivateKeysResultV2")
                 ->getArray("privateKeys")
                 ->getObject(0);
  a.privateKeyId = key->getValue<std::string>("privateKeyId");
  a.privateKeyAddress = key->getArray("addresses")->getObject(0)->getValue<std::string>("address");
  json::Object tag = params(R"({"privateKeyTagName": "a's tag"})");
  tag->set("privateKeyIds", json::stringArray({a.privateKeyId}));
  a.privateKeyTag = run("create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", tag,
                        "createPrivateKeyTagResult")
                        ->getValue<std::string>("privateKeyTagId");

  a.activityId = root.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", a.org,
                             params(R"({"userTagName": "a's tag", "userIds": []})"))
                     ->getValue<std::string>("id");
  gw.write([&](Db& db) {
    a.apiKeyId = db.queryOne(
                       "SELECT id FROM api_keys WHERE organization_id = ? AND user_id = ? "
                       "ORDER BY created_at_ms LIMIT 1",
                       {a.org, a.rootUserId})
                     ->str("id");
  });
  return a;
}

// One operation of B's that names one of A's objects, and what its refusal must say.
struct Attempt {
  std::string path, type;  // type empty: a query
  json::Object parameters;
  std::string refusal;  // a part of the message, with the id it names
};

TEST_P(CrossTenantObjectsTest, AnotherTenantNamingAsObjectsIsRefusedAndNothingChanges) {
  TestGateway gw(GetParam(),
                 {"memo", "sessions", "signing", "webhooks", "fiat-onramp", "auth-proxy"}, {},
                 pluginSettings());
  const ObjectsOfA a = makeObjectsOfA(gw);
  auto [b, bStamper] = gw.createOrganization("Organization B");
  Client asB = gw.clientWith(bStamper);
  const std::string& bOrg = b.organizationId;
  const std::string& bUser = b.userId;

  auto with = [](const std::string& json, const std::map<std::string, std::string>& ids) {
    json::Object p = params(json);
    for (const auto& [key, value] : ids) p->set(key, value);
    return p;
  };
  std::string exportTarget = newKey().publicKey;  // any P-256 key: nothing may be sealed to it
  std::string notFoundIn = " not found in organization " + bOrg;

  const std::vector<Attempt> attempts = {
      // fiat-onramp
      {"update_fiat_on_ramp_credential", "ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL",
       with(R"({"onrampProvider": "FIAT_ON_RAMP_PROVIDER_MOONPAY", "publishableApiKey": "pk_b",
                "encryptedSecretApiKey": "00"})",
            {{"fiatOnrampCredentialId", a.onrampCredential}}),
       a.onrampCredential},
      {"delete_fiat_on_ramp_credential", "ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL",
       with("{}", {{"fiatOnrampCredentialId", a.onrampCredential}}), a.onrampCredential},
      {"get_onramp_transaction_status", "",
       with(R"({"refresh": true})", {{"transactionId", a.onrampTransaction}}), a.onrampTransaction},
      // webhooks
      {"update_webhook_endpoint", "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
       with(R"({"name": "b's now"})", {{"endpointId", a.webhookEndpoint}}),
       "webhook endpoint " + a.webhookEndpoint + notFoundIn},
      {"delete_webhook_endpoint", "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
       with("{}", {{"endpointId", a.webhookEndpoint}}),
       "webhook endpoint " + a.webhookEndpoint + notFoundIn},
      {"signet_list_webhook_deliveries", "", with("{}", {{"endpointId", a.webhookEndpoint}}),
       "webhook endpoint " + a.webhookEndpoint + notFoundIn},
      // OAuth 2.0 credentials
      {"update_oauth2_credential", "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
       with(R"({"provider": "OAUTH2_PROVIDER_DISCORD", "clientId": "b-client",
                "encryptedClientSecret": "00"})",
            {{"oauth2CredentialId", a.oauth2Credential}}),
       a.oauth2Credential},
      {"delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
       with("{}", {{"oauth2CredentialId", a.oauth2Credential}}), a.oauth2Credential},
      {"get_oauth2_credential", "", with("{}", {{"oauth2CredentialId", a.oauth2Credential}}),
       a.oauth2Credential},
      {"oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
       with(R"({"authCode": "c", "redirectUri": "https://b.example/cb", "codeVerifier": "v",
                "nonce": "n"})",
            {{"oauth2CredentialId", a.oauth2Credential}}),
       a.oauth2Credential},
      // smart-contract interfaces
      {"get_smart_contract_interface", "",
       with("{}", {{"smartContractInterfaceId", a.contractInterface}}), a.contractInterface},
      {"delete_smart_contract_interface", "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
       with("{}", {{"smartContractInterfaceId", a.contractInterface}}), a.contractInterface},
      // session profiles: read, logged in with, pinned by an MFA policy
      {"get_session_profile", "", with("{}", {{"sessionProfileId", a.sessionProfile}}),
       a.sessionProfile},
      {"stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN",
       with("{}", {{"publicKey", newKey().publicKey}, {"sessionProfileId", a.sessionProfile}}),
       a.sessionProfile},
      {"create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY",
       [&] {
         json::Object p = with(R"({"mfaPolicyName": "b's", "condition": "true", "order": "1"})",
                               {{"userId", bUser}});
         p->set("requiredAuthenticationMethods",
                params(R"({"x": [{"any": [{"type": "AUTHENTICATION_TYPE_SESSION", "id": ")" +
                       a.sessionProfile + R"("}]}]})")
                    ->getArray("x"));
         return p;
       }(),
       "cannot satisfy mfa policy requirement: mfa policy 'b's' requires one of [\"Session\"]"},
      // MFA policies, and A's credentials an MFA policy of B's pins
      {"update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
       with(R"({"condition": "false"})", {{"userId", bUser}, {"mfaPolicyId", a.mfaPolicy}}),
       a.mfaPolicy},
      {"delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY",
       with("{}", {{"userId", bUser}, {"mfaPolicyId", a.mfaPolicy}}), a.mfaPolicy},
      {"get_mfa_policy", "", with("{}", {{"userId", bUser}, {"mfaPolicyId", a.mfaPolicy}}),
       a.mfaPolicy},
      {"update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
       with(R"({"condition": "false"})", {{"userId", a.rootUserId}, {"mfaPolicyId", a.mfaPolicy}}),
       a.rootUserId},
      {"create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY",
       [&] {
         json::Object p = with(R"({"mfaPolicyName": "b's", "condition": "true", "order": "2"})",
                               {{"userId", bUser}});
         p->set("requiredAuthenticationMethods",
                params(R"({"x": [{"any": [{"type": "AUTHENTICATION_TYPE_API_KEY", "id": ")" +
                       a.apiKeyId + R"("}]}]})")
                    ->getArray("x"));
         return p;
       }(),
       "cannot satisfy mfa policy requirement: mfa policy 'b's' requires one of [\"API key\"]"},
      {"get_mfa_status", "", with("{}", {{"activityId", a.activityId}}), a.activityId},
      // wallets, private keys and their tags
      {"get_wallet", "", with("{}", {{"walletId", a.walletId}}), a.walletId},
      {"list_wallet_accounts", "", with("{}", {{"walletId", a.walletId}}), a.walletId},
      {"get_wallet_account", "",
       with("{}", {{"walletId", a.walletId}, {"address", a.walletAddress}}), a.walletId},
      // an address's chain reads: refused as not B's before any chain is looked at
      {"get_wallet_address_balances", "",
       with("{}", {{"address", a.walletAddress}, {"caip2", "eip155:1"}}), a.walletAddress},
      {"list_eth_transaction_history", "",
       with("{}", {{"address", a.walletAddress}, {"caip2", "eip155:1"}}), a.walletAddress},
      {"list_sol_transaction_history", "",
       with("{}", {{"address", a.walletAddress}, {"caip2", "solana:mainnet"}}), a.walletAddress},
      {"update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET",
       with(R"({"walletName": "b's now"})", {{"walletId", a.walletId}}), a.walletId},
      {"create_wallet_accounts", "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
       [&] {
         json::Object p = with("{}", {{"walletId", a.walletId}});
         json::Array accounts = json::array();
         accounts->add(account("CURVE_SECP256K1", "m/44'/60'/0'/0/1", "ADDRESS_FORMAT_ETHEREUM"));
         p->set("accounts", accounts);
         return p;
       }(),
       a.walletId},
      {"export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET",
       with("{}", {{"walletId", a.walletId}, {"targetPublicKey", exportTarget}}), a.walletId},
      {"export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
       with("{}", {{"address", a.walletAddress}, {"targetPublicKey", exportTarget}}),
       a.walletAddress},
      {"delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
       [&] {
         json::Object p = with(R"({"deleteWithoutExport": true})", {});
         p->set("walletAccountIds", json::stringArray({a.walletAccountId}));
         return p;
       }(),
       a.walletAccountId},
      {"delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS",
       [&] {
         json::Object p = with(R"({"deleteWithoutExport": true})", {});
         p->set("walletIds", json::stringArray({a.walletId}));
         return p;
       }(),
       a.walletId},
      {"sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
       signParams(a.walletAddress, "00", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"),
       a.walletAddress},
      {"sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
       signParams(a.privateKeyId, "00", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"),
       a.privateKeyId},
      {"get_private_key", "", with("{}", {{"privateKeyId", a.privateKeyId}}), a.privateKeyId},
      {"export_private_key", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
       with("{}", {{"privateKeyId", a.privateKeyId}, {"targetPublicKey", exportTarget}}),
       a.privateKeyId},
      {"delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
       [&] {
         json::Object p = with(R"({"deleteWithoutExport": true})", {});
         p->set("privateKeyIds", json::stringArray({a.privateKeyId}));
         return p;
       }(),
       a.privateKeyId},
      {"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
       [&] {
         json::Object p = with(R"({"privateKeyTagName": "b's tag"})", {});
         p->set("privateKeyIds", json::stringArray({a.privateKeyId}));
         return p;
       }(),
       a.privateKeyId},
      {"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
       with(R"({"newPrivateKeyTagName": "b's now", "addPrivateKeyIds": [],
                "removePrivateKeyIds": []})",
            {{"privateKeyTagId", a.privateKeyTag}}),
       a.privateKeyTag},
      {"delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
       [&] {
         json::Object p = json::object();
         p->set("privateKeyTagIds", json::stringArray({a.privateKeyTag}));
         return p;
       }(),
       a.privateKeyTag},
  };

  // B's refused activities are recorded: checked below to be B's, every other table compared.
  const auto& bsAttempts = kActivityRecordTables;
  auto before = fingerprintOfStore(gw, bsAttempts);
  const std::string notB = "SELECT COUNT(*) FROM activities WHERE organization_id <> ?";
  int64_t othersBefore = gw.count(notB, {bOrg});
  // What the stamps presented on others' activities, kept in those activities' rows.
  auto presentedOnOthers = [&] {
    std::string all;
    gw.write([&](Db& db) {
      for (const auto& row : db.query("SELECT id, presentations FROM activities WHERE "
                                      "organization_id <> ? ORDER BY id",
                                      {bOrg}))
        all += row.str("id") + " " + row.optStr("presentations").value_or("NULL") + "\n";
    });
    return all;
  };
  const std::string presentedBefore = presentedOnOthers();
  std::set<std::string> covered;
  for (const auto& t : attempts) {
    covered.insert(t.path);
    std::string refusal;
    if (t.type.empty()) {
      json::Object body = json::parseObject(json::stringify(t.parameters), "copy");
      body->set("organizationId", bOrg);
      try {
        auto answer = asB.query(t.path, body);
        ADD_FAILURE() << t.path << " answered B about A's object: " << json::stringify(answer);
        continue;
      } catch (const RequestError& e) {
        refusal = e.what();
      }
    } else {
      refusal = refusalOf([&] { return asB.submit(t.path, t.type, bOrg, t.parameters); });
    }
    EXPECT_NE(refusal.find(t.refusal), std::string::npos)
        << t.path << " " << t.type << ": " << refusal;
    // Each says where it looked: in B, or for B's user; none names A.
    EXPECT_TRUE(refusal.find("organization " + bOrg) != std::string::npos ||
                refusal.find("user (" + bUser + ")") != std::string::npos)
        << t.path << ": " << refusal;
    EXPECT_EQ(refusal.find(a.org), std::string::npos) << t.path << ": " << refusal;
  }

  // A's auth proxy, asked to log a user into B: its key is A's, and B refuses it.
  {
    json::Object body = json::object();
    body->set("verificationToken",
              gw.mintVerificationToken("OTP_TYPE_EMAIL", "b@example.com", bOrg));
    body->set("publicKey", newKey().publicKey);
    body->set("organizationId", bOrg);
    Client proxy(gw.listenerUrl("auth-proxy", "proxy"), nullptr);
    auto r = proxy.post("/v1/otp_login", json::stringify(body),
                        {{"X-Auth-Proxy-Config-ID", a.proxyConfig}});
    EXPECT_EQ(r.status, 401) << r.body;
    EXPECT_NE(r.body.find("could not find public key in organization or its parent organization"),
              std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("is not registered in organization " + bOrg), std::string::npos)
        << r.body;
  }

  // B's lists hold nothing of A's.
  for (const auto& [path, body] : std::vector<std::pair<std::string, json::Object>>{
           {"list_fiat_on_ramp_credentials", json::object()},
           {"list_webhook_endpoints", json::object()},
           {"list_oauth2_credentials", json::object()},
           {"list_smart_contract_interfaces", json::object()},
           {"get_session_profiles", json::object()},
           {"get_mfa_policies", with("{}", {{"userId", bUser}})},
           {"list_wallets", json::object()},
           {"list_private_keys", json::object()},
           {"list_private_key_tags", json::object()},
           {"get_auth_proxy_config", json::object()},
       }) {
    json::Object withOrg = json::parseObject(json::stringify(body), "copy");
    withOrg->set("organizationId", bOrg);
    std::string answer;
    try {
      answer = json::stringify(asB.query(path, withOrg));
    } catch (const RequestError& e) {
      answer = e.what();  // B has none (no auth proxy): a refusal naming nothing of A's
    }
    for (const auto& id : a.ids())
      EXPECT_EQ(answer.find(id), std::string::npos)
          << path << " shows A's " << id << ": " << answer;
  }

  // Nothing changed anywhere but B's own refused activities, every one of them FAILED.
  EXPECT_EQ(changedTables(before, fingerprintOfStore(gw, bsAttempts)), "");
  EXPECT_EQ(gw.count(notB, {bOrg}), othersBefore);
  EXPECT_EQ(presentedOnOthers(), presentedBefore);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE organization_id = ? AND status <> "
                     "'ACTIVITY_STATUS_FAILED'",
                     {bOrg}),
            0);

  // Every operation of the enabled plugins whose name says it acts on one of these objects is
  // among the attempts (a new one must be added above), or creates, imports or lists them, which
  // names none of A's (create_wallet_accounts and create_private_key_tag, which do, are above).
  for (const auto& module : gw.gateway().catalog().modules()) {
    if (!module->enabled) continue;
    auto check = [&](const std::string& path) {
      for (const char* word : {"fiat_on_ramp_credential", "onramp_transaction", "webhook_endpoint",
                               "webhook_deliver", "oauth2_credential", "smart_contract_interface",
                               "session_profile", "mfa_polic", "private_key", "wallet"}) {
        if (path.find(word) == std::string::npos) continue;
        bool takesNoId = path.rfind("create_", 0) == 0 || path.rfind("list_", 0) == 0 ||
                         path.rfind("get_session_profiles", 0) == 0 ||
                         path.rfind("get_mfa_policies", 0) == 0 ||
                         path.rfind("init_import_", 0) == 0 || path.rfind("import_", 0) == 0;
        if (!takesNoId) {
          EXPECT_TRUE(covered.count(path))
              << path << " (" << module->name << ") takes an id and is not attempted here";
        }
      }
    };
    for (const auto& spec : module->activities) check(spec.path);
    for (const auto& q : module->queries) check(q.path);
  }
}

}  // namespace
}  // namespace signet::test
