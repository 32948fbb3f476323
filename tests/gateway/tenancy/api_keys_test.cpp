// The core's API-key and identity operations through a real gateway over HTTP, on SQLite and
// on PostgreSQL.
#include "support/test_gateway.hpp"
#include "tenancy/directory.hpp"

namespace signet::test {
namespace {

class ApiKeysTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ApiKeysTest);

json::Object keyParams(const std::string& userId, const std::string& name, const std::string& pub,
                       const std::string& curve, std::optional<std::string> expiration = {}) {
  json::Object key = json::object();
  key->set("apiKeyName", name);
  key->set("publicKey", pub);
  key->set("curveType", curve);
  if (expiration) key->set("expirationSeconds", *expiration);
  json::Array keys = json::array();
  keys->add(key);
  json::Object p = json::object();
  p->set("apiKeys", keys);
  p->set("userId", userId);
  return p;
}

TEST_P(ApiKeysTest, WhoamiAndGetUserWithTheRootKey) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  auto me = client.query("whoami", orgBody(gw.root().organizationId));
  EXPECT_EQ(me->getValue<std::string>("organizationId"), gw.root().organizationId);
  EXPECT_EQ(me->getValue<std::string>("organizationName"), "Test Org");
  EXPECT_EQ(me->getValue<std::string>("userId"), gw.root().userId);
  EXPECT_EQ(me->getValue<std::string>("username"), "root user");

  auto body = orgBody(gw.root().organizationId);
  body->set("userId", gw.root().userId);
  auto user = client.query("get_user", body)->getObject("user");
  EXPECT_EQ(user->getValue<std::string>("userName"), "root user");
  auto keys = user->getArray("apiKeys");
  ASSERT_EQ(keys->size(), 1u);
  auto credential = keys->getObject(0)->getObject("credential");
  EXPECT_EQ(credential->getValue<std::string>("publicKey"), gw.rootStamper()->publicKeyHex());
  EXPECT_EQ(credential->getValue<std::string>("type"), "CREDENTIAL_TYPE_API_KEY_P256");
  for (const char* field : {"authenticators", "userTags", "oauthProviders", "mfaPolicies"})
    EXPECT_TRUE(user->getArray(field)) << field;
  EXPECT_TRUE(user->getObject("createdAt")->has("seconds"));
}

TEST_P(ApiKeysTest, CreatesKeysOfEveryCurveAndEachNewKeyStamps) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  struct Case {
    stamp::Scheme scheme;
    const char* curve;
  };
  for (Case c : {Case{stamp::Scheme::kP256, "API_KEY_CURVE_P256"},
                 Case{stamp::Scheme::kSecp256k1, "API_KEY_CURVE_SECP256K1"},
                 Case{stamp::Scheme::kSecp256k1Eip191, "API_KEY_CURVE_SECP256K1"},
                 Case{stamp::Scheme::kEd25519, "API_KEY_CURVE_ED25519"}}) {
    auto priv = crypto::generatePrivateKey(stamp::curveOf(c.scheme));
    auto pub = toHex(crypto::publicKeyFromPrivate(stamp::curveOf(c.scheme), priv));
    auto activity =
        root.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", gw.root().organizationId,
                    keyParams(gw.root().userId, std::string("key ") + stamp::schemeName(c.scheme),
                              pub, c.curve));
    ASSERT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
        << json::stringify(activity);
    auto ids =
        activity->getObject("result")->getObject("createApiKeysResult")->getArray("apiKeyIds");
    ASSERT_EQ(ids->size(), 1u);
    // Only the populated key in intent and result.
    EXPECT_EQ(activity->getObject("result")->size(), 1u);
    EXPECT_TRUE(activity->getObject("intent")->has("createApiKeysIntentV2"));

    auto stamper = std::make_shared<ApiKeyStamper>(std::move(priv), c.scheme);
    auto keys = gw.clientWith(stamper).query("get_api_keys", orgBody(gw.root().organizationId));
    bool found = false;
    auto list = keys->getArray("apiKeys");
    for (size_t i = 0; i < list->size(); ++i)
      found =
          found || list->getObject(static_cast<unsigned>(i))->getValue<std::string>("apiKeyId") ==
                       ids->getElement<std::string>(0);
    EXPECT_TRUE(found) << stamp::schemeName(c.scheme);
  }
}

TEST_P(ApiKeysTest, ExpiredKeyIsRefusedWithTheMessageClientsMatch) {
  TestGateway gw(GetParam());
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  auto activity = gw.rootClient().submit(
      "create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", gw.root().organizationId,
      keyParams(gw.root().userId, "short", pub, "API_KEY_CURVE_P256", "60"));
  ASSERT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  auto client =
      gw.clientWith(std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256));
  auto keys = client.query("get_api_keys", orgBody(gw.root().organizationId))->getArray("apiKeys");
  bool sawExpiration = false;
  for (size_t i = 0; i < keys->size(); ++i)
    sawExpiration =
        sawExpiration ||
        keys->getObject(static_cast<unsigned>(i))->optValue<std::string>("expirationSeconds", "") ==
            "60";
  EXPECT_TRUE(sawExpiration);

  int64_t later = systemNowMs() + 61'000;
  gw.gateway().setClock([later] { return later; });
  try {
    client.query("whoami", orgBody(gw.root().organizationId));
    FAIL() << "an expired key was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
    EXPECT_NE(std::string(e.what()).find("Unauthenticated desc = expired api key publicKey"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(ApiKeysTest, PublicKeyNotOnCurveIsRefusedAndNothingIsWritten) {
  TestGateway gw(GetParam());
  int64_t activitiesBefore = gw.count("SELECT COUNT(*) FROM activities");
  int64_t keysBefore = gw.count("SELECT COUNT(*) FROM api_keys");
  Bytes notOnCurve(33, 0xff);
  notOnCurve[0] = 0x02;
  try {
    gw.rootClient().submit(
        "create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", gw.root().organizationId,
        keyParams(gw.root().userId, "bad", toHex(notOnCurve), "API_KEY_CURVE_SECP256K1"));
    FAIL() << "accepted a key that is not a curve point";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("parameters.apiKeys[0].publicKey"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activitiesBefore);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys"), keysBefore);
}

TEST_P(ApiKeysTest, ExecutionFailureIsAStoredFailedActivityWithNoPartialWrites) {
  TestGateway gw(GetParam());
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  // Two keys where the second is already registered: the first must not stay behind.
  json::Object params = keyParams(gw.root().userId, "fresh",
                                  toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv)),
                                  "API_KEY_CURVE_P256");
  json::Object dup = json::object();
  dup->set("apiKeyName", "duplicate");
  dup->set("publicKey", gw.rootStamper()->publicKeyHex());
  dup->set("curveType", "API_KEY_CURVE_P256");
  params->getArray("apiKeys")->add(dup);
  auto activity = gw.rootClient().submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
                                         gw.root().organizationId, params);
  EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED");
  auto failure = activity->getObject("failure");
  ASSERT_TRUE(failure);
  EXPECT_NE(failure->getValue<std::string>("message").find("already registered in organization " +
                                                           gw.root().organizationId),
            std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys"), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE status = ?",
                     {std::string("ACTIVITY_STATUS_FAILED")}),
            1);
}

TEST_P(ApiKeysTest, GetApiKeyAndDeleteApiKeys) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  auto priv = crypto::generatePrivateKey(crypto::Curve::kEd25519);
  auto created =
      root.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", gw.root().organizationId,
                  keyParams(gw.root().userId, "ed",
                            toHex(crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, priv)),
                            "API_KEY_CURVE_ED25519"));
  std::string id = created->getObject("result")
                       ->getObject("createApiKeysResult")
                       ->getArray("apiKeyIds")
                       ->getElement<std::string>(0);
  auto q = orgBody(gw.root().organizationId);
  q->set("apiKeyId", id);
  auto key = root.query("get_api_key", q)->getObject("apiKey");
  EXPECT_EQ(key->getValue<std::string>("apiKeyName"), "ed");
  EXPECT_EQ(key->getObject("credential")->getValue<std::string>("type"),
            "CREDENTIAL_TYPE_API_KEY_ED25519");

  json::Object del = json::object();
  del->set("userId", gw.root().userId);
  del->set("apiKeyIds", json::stringArray({id}));
  auto deleted = root.submit("delete_api_keys", "ACTIVITY_TYPE_DELETE_API_KEYS",
                             gw.root().organizationId, del);
  EXPECT_EQ(deleted->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(deleted->getObject("result")
                ->getObject("deleteApiKeysResult")
                ->getArray("apiKeyIds")
                ->getElement<std::string>(0),
            id);
  try {
    root.query("get_api_key", q);
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404);
  }
  // The deleted key no longer stamps.
  try {
    gw.clientWith(std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kEd25519))
        .query("whoami", orgBody(gw.root().organizationId));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
  }
}

TEST_P(ApiKeysTest, ExpiringKeysBeyondTheCapEvictExpiredThenOldest) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  std::vector<std::string> ids;
  for (int i = 0; i < 11; ++i) {
    auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
    auto a =
        root.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", gw.root().organizationId,
                    keyParams(gw.root().userId, "session " + std::to_string(i),
                              toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv)),
                              "API_KEY_CURVE_P256", "3600"));
    ASSERT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
        << json::stringify(a);
    ids.push_back(a->getObject("result")
                      ->getObject("createApiKeysResult")
                      ->getArray("apiKeyIds")
                      ->getElement<std::string>(0));
  }
  // 10 expiring keys at most: the oldest went; the long-lived root key stays.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys WHERE expires_at_ms IS NOT NULL"), 10);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys WHERE id = ?", {ids.front()}), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys WHERE expires_at_ms IS NULL"), 1);
}

}  // namespace
}  // namespace signet::test
