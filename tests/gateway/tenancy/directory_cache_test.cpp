// The directory cache (tenancy/directory_cache.hpp) against a real gateway over HTTP: what a
// request reads of keys, users, root quorums, policies and features is kept between requests,
// yet a change takes effect on the very next request, whether it came through the API or past
// it (raw SQL). On PostgreSQL a second gateway on the same store warms its own cache first and
// must follow every change too.
#include "server/http_server.hpp"
#include "support/auth_fixtures.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class DirectoryCacheTest : public BackendTest {};
SIGNET_BACKEND_SUITE(DirectoryCacheTest);

// The test gateway's URL, and on PostgreSQL a second gateway's on the same store.
class Gateways {
 public:
  explicit Gateways(TestGateway& gw) {
    urls_.push_back(gw.baseUrl());
    if (gw.gateway().config().database.backend != Backend::kPostgres) return;
    second_ = std::make_unique<Gateway>(gw.gateway().config());
    server_ = std::make_unique<HttpServer>(*second_, "127.0.0.1:0");
    server_->start();
    urls_.push_back("http://127.0.0.1:" + std::to_string(server_->port()));
  }
  ~Gateways() {
    if (server_) server_->stop();
  }
  const std::vector<std::string>& urls() const { return urls_; }

 private:
  std::unique_ptr<Gateway> second_;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::string> urls_;
};

// A new P-256 API key of the root user.
struct AddedKey {
  std::shared_ptr<ApiKeyStamper> stamper;
  std::string id;
};
AddedKey addRootKey(TestGateway& gw) {
  Key key = newKey();
  json::Object k = json::object();
  k->set("apiKeyName", "cached " + crypto::uuidV4().substr(0, 8));
  k->set("publicKey", key.publicKey);
  k->set("curveType", "API_KEY_CURVE_P256");
  json::Array keys = json::array();
  keys->add(k);
  json::Object p = json::object();
  p->set("apiKeys", keys);
  p->set("userId", gw.root().userId);
  auto ids = resultOf(gw.rootClient().submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
                                             gw.root().organizationId, p),
                      "createApiKeysResult")
                 ->getArray("apiKeyIds");
  return {key.stamper, ids->getElement<std::string>(0)};
}

// The HTTP status of whoami with `stamper` on `url` (200 when it answers).
int whoamiStatus(const std::string& url, const std::shared_ptr<ApiKeyStamper>& stamper,
                 const std::string& organizationId) {
  try {
    Client(url, stamper).query("whoami", orgBody(organizationId));
    return 200;
  } catch (const RequestError& e) {
    return e.httpStatus();
  }
}

TEST_P(DirectoryCacheTest, RepeatedRequestsAreAnsweredFromTheCache) {
  TestGateway gw(GetParam());
  auto client = gw.rootClient();
  client.query("whoami", orgBody(gw.root().organizationId));
  auto before = gw.gateway().directoryCache().hits();
  for (int i = 0; i < 5; ++i) client.query("whoami", orgBody(gw.root().organizationId));
  auto after = gw.gateway().directoryCache().hits();
  // The organization, the key and its user, the IP allowlists of the key's organization, and
  // the root quorum, then the organization again for the answer (through the same view, not
  // another statement): six reads each, all hits.
  EXPECT_EQ(after.hits - before.hits, 5u * 6u);
  EXPECT_EQ(after.misses, before.misses);
}

// What the pipeline asks before it sends a read-only activity's reads ahead of the caller's
// authentication (ActivitySpec::readAhead): whether a request has shown this key in this
// organization. A key no request showed, or the same key in another organization, is not.
TEST_P(DirectoryCacheTest, AKeyIsGuessedKnownOnlyInTheOrganizationARequestShowedItIn) {
  TestGateway gw(GetParam());
  const std::string& org = gw.root().organizationId;
  const std::string& publicKey = gw.rootStamper()->publicKeyHex();
  auto& cache = gw.gateway().directoryCache();
  EXPECT_FALSE(cache.mayHoldApiKey(publicKey, org));
  gw.rootClient().query("whoami", orgBody(org));
  EXPECT_TRUE(cache.mayHoldApiKey(publicKey, org));
  EXPECT_FALSE(cache.mayHoldApiKey(publicKey, crypto::uuidV4()));
  EXPECT_FALSE(cache.mayHoldApiKey(newKey().publicKey, org));
}

// The status of a new signature by `address`, requested on `url`.
std::string signStatus(const std::string& url, const std::shared_ptr<ApiKeyStamper>& stamper,
                       const std::string& organizationId, const std::string& address) {
  // A payload of its own each time: an identical body would be the same activity again.
  std::string payload = crypto::uuidV4();
  return status(Client(url, stamper)
                    .submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", organizationId,
                            signParams(address, payload, "PAYLOAD_ENCODING_TEXT_UTF8",
                                       "HASH_FUNCTION_KECCAK256")));
}

TEST_P(DirectoryCacheTest, AReadOnlyActivityIsDecidedFromTheCache) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string& org = gw.root().organizationId;
  std::string address = newEthereumAddress(gw.rootClient(), gw.root().organizationId, "cached");
  ASSERT_EQ(signStatus(gw.baseUrl(), gw.rootStamper(), org, address), kCompleted);
  auto before = gw.gateway().directoryCache().hits();
  ASSERT_EQ(signStatus(gw.baseUrl(), gw.rootStamper(), org, address), kCompleted);
  auto after = gw.gateway().directoryCache().hits();
  // Authentication: the organization, the key, its user, the IP allowlists of its organization
  // and the root quorum. The decision on
  // the snapshot: the user as the vote shows them, the key again for what the stamp presents and
  // for a session's scope, the submitter's MFA policies, the organization and its root quorum.
  // The write transaction that stores the activity reads none of them again.
  EXPECT_EQ(after.hits - before.hits, 5u + 6u);
  EXPECT_EQ(after.misses, before.misses);
}

TEST_P(DirectoryCacheTest, AnMfaPolicyTakesEffectOnTheVeryNextRequest) {
  TestGateway gw(GetParam(), {"signing"});
  Gateways gateways(gw);
  const std::string& org = gw.root().organizationId;
  std::string address = newEthereumAddress(gw.rootClient(), gw.root().organizationId, "cached");
  for (const auto& url : gateways.urls())  // each gateway caches "no MFA policies"
    ASSERT_EQ(signStatus(url, gw.rootStamper(), org, address), kCompleted) << url;

  // A factor the root user holds but does not sign with: a second API key of theirs.
  AddedKey second = addRootKey(gw);
  json::Array otherKey = json::array();
  json::Object method = json::object();
  method->set("type", "AUTHENTICATION_TYPE_API_KEY");
  method->set("id", second.id);
  json::Array any = json::array();
  any->add(method);
  json::Object step = json::object();
  step->set("any", any);
  otherKey->add(step);
  json::Object p = json::object();
  p->set("userId", gw.root().userId);
  p->set("mfaPolicyName", "second key to sign");
  p->set("condition", "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'");
  p->set("requiredAuthenticationMethods", otherKey);
  p->set("order", 0);
  std::string policyId = resultOf(gw.rootClient().submit("create_mfa_policy",
                                                         "ACTIVITY_TYPE_CREATE_MFA_POLICY", org, p),
                                  "createMfaPolicyResult")
                             ->getValue<std::string>("mfaPolicyId");
  for (const auto& url : gateways.urls())
    EXPECT_EQ(signStatus(url, gw.rootStamper(), org, address),
              "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED")
        << url;

  json::Object d = json::object();
  d->set("userId", gw.root().userId);
  d->set("mfaPolicyId", policyId);
  resultOf(gw.rootClient().submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", org, d),
           "deleteMfaPolicyResult");
  for (const auto& url : gateways.urls())
    EXPECT_EQ(signStatus(url, gw.rootStamper(), org, address), kCompleted) << url;
}

TEST_P(DirectoryCacheTest, ADeletedKeyIsRefusedOnTheVeryNextRequest) {
  TestGateway gw(GetParam());
  Gateways gateways(gw);
  const std::string& org = gw.root().organizationId;
  AddedKey key = addRootKey(gw);
  for (const auto& url : gateways.urls()) {  // warm every gateway's cache with the key
    ASSERT_EQ(whoamiStatus(url, key.stamper, org), 200) << url;
    ASSERT_EQ(whoamiStatus(url, key.stamper, org), 200) << url;
  }
  json::Object p = json::object();
  p->set("userId", gw.root().userId);
  p->set("apiKeyIds", json::stringArray({key.id}));
  resultOf(gw.rootClient().submit("delete_api_keys", "ACTIVITY_TYPE_DELETE_API_KEYS", org, p),
           "deleteApiKeysResult");
  for (const auto& url : gateways.urls())
    EXPECT_EQ(whoamiStatus(url, key.stamper, org), 401) << url;
}

TEST_P(DirectoryCacheTest, AWritePastTheApiIsSeenToo) {
  TestGateway gw(GetParam());
  Gateways gateways(gw);
  const std::string& org = gw.root().organizationId;
  AddedKey key = addRootKey(gw);
  for (const auto& url : gateways.urls())
    ASSERT_EQ(whoamiStatus(url, key.stamper, org), 200) << url;
  // An operator's hand on the store: the triggers count it like any write of the API.
  gw.write([&](Db& db) { db.exec("DELETE FROM api_keys WHERE id = ?", {key.id}); });
  for (const auto& url : gateways.urls())
    EXPECT_EQ(whoamiStatus(url, key.stamper, org), 401) << url;

  // A renamed user: whoami reads the name through the cache.
  for (const auto& url : gateways.urls())
    EXPECT_EQ(Client(url, gw.rootStamper())
                  .query("whoami", orgBody(org))
                  ->getValue<std::string>("username"),
              "root user");
  gw.write([&](Db& db) {
    db.exec("UPDATE users SET name = ? WHERE id = ?", {std::string("renamed"), gw.root().userId});
  });
  for (const auto& url : gateways.urls())
    EXPECT_EQ(Client(url, gw.rootStamper())
                  .query("whoami", orgBody(org))
                  ->getValue<std::string>("username"),
              "renamed")
        << url;
}

TEST_P(DirectoryCacheTest, ARolledBackWriteLeavesNothingBehind) {
  TestGateway gw(GetParam());
  const std::string& org = gw.root().organizationId;
  AddedKey key = addRootKey(gw);
  ASSERT_EQ(whoamiStatus(gw.baseUrl(), key.stamper, org), 200);
  EXPECT_THROW(gw.write([&](Db& db) {
    db.exec("DELETE FROM api_keys WHERE id = ?", {key.id});
    throw std::runtime_error("roll back");
  }),
               std::runtime_error);
  EXPECT_EQ(whoamiStatus(gw.baseUrl(), key.stamper, org), 200);
}

TEST_P(DirectoryCacheTest, PolicyAndRootQuorumChangesTakeEffectOnTheVeryNextRequest) {
  TestGateway gw(GetParam());
  Gateways gateways(gw);
  Org o(gw);
  auto u1 = o.user("U1");
  auto createAs = [&](const std::string& url) {
    Client c(url, o.stamper(u1));
    return status(createUsersWith(c, o.org()));
  };
  auto quorum = [&](const std::vector<std::string>& members) {
    json::Object p = json::object();
    p->set("threshold", 1);
    p->set("userIds", json::stringArray(members));
    resultOf(o.root().submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", o.org(), p),
             "updateRootQuorumResult");
  };

  for (const auto& url : gateways.urls()) EXPECT_EQ(createAs(url), kFailed) << url;  // no policy
  std::string policyId = o.policy("U1 creates users", "EFFECT_ALLOW",
                                  "activity.resource == 'USER' && activity.action == 'CREATE'",
                                  "approvers.any(user, user.id == '" + u1 + "')");
  for (const auto& url : gateways.urls()) EXPECT_EQ(createAs(url), kCompleted) << url;
  json::Object d = json::object();
  d->set("policyId", policyId);
  resultOf(o.root().submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", o.org(), d),
           "deletePolicyResult");
  for (const auto& url : gateways.urls()) EXPECT_EQ(createAs(url), kFailed) << url;

  // In the root quorum, U1 needs no policy; out of it again, it does.
  quorum({gw.root().userId, u1});
  for (const auto& url : gateways.urls()) EXPECT_EQ(createAs(url), kCompleted) << url;
  quorum({gw.root().userId});
  for (const auto& url : gateways.urls()) EXPECT_EQ(createAs(url), kFailed) << url;
}

TEST_P(DirectoryCacheTest, ARemovedFeatureIsRefusedOnTheVeryNextRequest) {
  TestGateway gw(GetParam(), {"sessions"});
  Gateways gateways(gw);
  const std::string& org = gw.root().organizationId;
  auto initOtp = [&](const std::string& url) {
    json::Object p = json::object();
    p->set("otpType", "OTP_TYPE_EMAIL");
    p->set("contact", "cached@example.com");
    p->set("appName", "Demo");
    try {
      return status(
          Client(url, gw.rootStamper()).submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", org, p));
    } catch (const RequestError& e) {
      return std::string("refused: ") + e.what();
    }
  };
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH", "true");
  for (const auto& url : gateways.urls()) EXPECT_EQ(initOtp(url), kCompleted) << url;
  json::Object removal = json::object();
  removal->set("name", "FEATURE_NAME_OTP_EMAIL_AUTH");
  resultOf(gw.rootClient().submit("remove_organization_feature",
                                  "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", org, removal),
           "removeOrganizationFeatureResult");
  for (const auto& url : gateways.urls()) EXPECT_NE(initOtp(url), kCompleted) << url;
}

}  // namespace
}  // namespace signet::test
