// Sessions through a real gateway: stamp_login and its JWT, session profiles and their
// lifetimes, expiry with the message clients match, invalidateExisting and the key cap,
// read-write sessions as credential bundles, read-only sessions, and X-Stamp-Attested.
#include "signet/bundles.hpp"
#include "signet/jwt.hpp"
#include "support/auth_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class SessionsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SessionsTest);

json::Object loginParams(const std::string& publicKey) {
  json::Object p = json::object();
  p->set("publicKey", publicKey);
  return p;
}

std::string stampLogin(TestGateway& gw, const Client& client, const std::string& org,
                       json::Object params) {
  return resultOf(client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", org, params),
                  "stampLoginResult")
      ->getValue<std::string>("session");
}

int64_t loginKeys(TestGateway& gw, const std::string& userId) {
  return gw.count("SELECT COUNT(*) FROM api_keys WHERE user_id = ? AND credential_type = ?",
                  {userId, std::string("CREDENTIAL_TYPE_LOGIN")});
}

// The claim lies `lifetime` seconds after some instant between `beforeS` and now: a login
// issued just before a second boundary must not fail the test.
void expectExpiry(TestGateway& gw, const json::Object& claims, int64_t beforeS, int64_t lifetime) {
  int64_t exp = claims->getValue<int64_t>("exp");
  EXPECT_GE(exp, beforeS + lifetime);
  EXPECT_LE(exp, gw.gateway().nowMs() / 1000 + lifetime);
}

TEST_P(SessionsTest, StampLoginProfilesLifetimesAndExpiry) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);

  auto s1 = newSessionKey();
  int64_t beforeS = gw.gateway().nowMs() / 1000;
  auto claims =
      gatewayJwtClaims(gw, stampLogin(gw, alice, sub.id, loginParams(s1.publicKey)), true);
  EXPECT_EQ(claims->getValue<std::string>("session_type"), "SESSION_TYPE_READ_WRITE");
  EXPECT_EQ(claims->getValue<std::string>("user_id"), sub.userId);
  expectExpiry(gw, claims, beforeS, 900);
  EXPECT_EQ(
      gw.clientWith(s1.stamper()).query("whoami", orgBody(sub.id))->getValue<std::string>("userId"),
      sub.userId);

  // A profile caps the lifetime: min(intent, profile). Its name, id and scope are claims;
  // characters atob() would choke on are escaped, not dropped.
  auto profileParams = json::parseObject(
      R"({"sessionProfileName":"trading > desk ~ é","scope":"activity.type != 'amount > 5 ?'","expirationSeconds":"60","notes":"n"})",
      "t");
  std::string profileId =
      resultOf(alice.submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
                            sub.id, profileParams),
               "createSessionProfileResult")
          ->getValue<std::string>("sessionProfileId");
  auto s2 = newSessionKey();
  auto p = loginParams(s2.publicKey);
  p->set("sessionProfileId", profileId);
  p->set("expirationSeconds", "900");
  beforeS = gw.gateway().nowMs() / 1000;
  std::string jwt = stampLogin(gw, alice, sub.id, p);
  std::string payload = jwt.substr(jwt.find('.') + 1);
  payload = payload.substr(0, payload.find('.'));
  EXPECT_EQ(payload.find_first_of("-_"), std::string::npos) << payload;
  claims = gatewayJwtClaims(gw, jwt, true);
  expectExpiry(gw, claims, beforeS, 60);
  EXPECT_EQ(claims->getValue<std::string>("session_type"), "trading > desk ~ é");
  EXPECT_EQ(claims->getValue<std::string>("scope"), "activity.type != 'amount > 5 ?'");
  EXPECT_EQ(claims->getValue<std::string>("session_profile_id"), profileId);
  auto got = alice.query("get_session_profile",
                         json::parseObject(R"({"organizationId":")" + sub.id +
                                               R"(","sessionProfileId":")" + profileId + R"("})",
                                           "t"));
  EXPECT_EQ(got->getObject("sessionProfile")->getValue<std::string>("expirationSeconds"), "60");
  EXPECT_EQ(
      alice.query("get_session_profiles", orgBody(sub.id))->getArray("sessionProfiles")->size(),
      1u);
  EXPECT_NE(failureOf(alice.submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
                                   sub.id, profileParams))
                .find("already exists"),
            std::string::npos);
  // After 61 s the profile's session key is expired, with the message clients match.
  int64_t start = gw.gateway().nowMs();
  gw.gateway().setClock([start] { return start + 61 * 1000; });
  try {
    gw.clientWith(s2.stamper()).query("whoami", orgBody(sub.id));
    ADD_FAILURE() << "an expired session key was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
    EXPECT_NE(std::string(e.what()).find("expired api key"), std::string::npos) << e.what();
  }
}

TEST_P(SessionsTest, InvalidateExistingAndTheExpiringKeyCap) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  for (int i = 0; i < 3; ++i) stampLogin(gw, alice, sub.id, loginParams(newSessionKey().publicKey));
  EXPECT_EQ(loginKeys(gw, sub.userId), 3);
  auto p = loginParams(newSessionKey().publicKey);
  p->set("invalidateExisting", true);
  stampLogin(gw, alice, sub.id, p);
  EXPECT_EQ(loginKeys(gw, sub.userId), 1);
  std::vector<SessionKey> keys;
  for (int i = 0; i < 11; ++i) {
    keys.push_back(newSessionKey());
    stampLogin(gw, alice, sub.id, loginParams(keys.back().publicKey));
  }
  // Ten expiring keys per user: the oldest went first; the user's own key stays.
  EXPECT_EQ(loginKeys(gw, sub.userId), 10);
  EXPECT_THROW(gw.clientWith(keys[0].stamper()).query("whoami", orgBody(sub.id)), RequestError);
  gw.clientWith(keys[10].stamper()).query("whoami", orgBody(sub.id));
  gw.clientWith(sub.userKey.stamper).query("whoami", orgBody(sub.id));
}

TEST_P(SessionsTest, ReadWriteSessionsAreCredentialBundlesAndReadOnlySessionsAreJwts) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  auto target = newSessionKey();
  json::Object p = json::object();
  p->set("targetPublicKey",
         toHex(crypto::uncompressPublicKey(crypto::Curve::kP256, *fromHex(target.publicKey))));
  p->set("expirationSeconds", "120");
  auto r = resultOf(alice.submit("create_read_write_session",
                                 "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", sub.id, p),
                    "createReadWriteSessionResultV2");
  EXPECT_EQ(r->getValue<std::string>("userId"), sub.userId);
  EXPECT_EQ(r->getValue<std::string>("organizationName"), "end user");
  auto stamper = stamperFromBundle(target, r->getValue<std::string>("credentialBundle"));
  ASSERT_TRUE(stamper);
  gw.clientWith(stamper).query("whoami", orgBody(sub.id));
  auto stored = alice.query(
      "get_api_key", json::parseObject(R"({"organizationId":")" + sub.id + R"(","apiKeyId":")" +
                                           r->getValue<std::string>("apiKeyId") + R"("})",
                                       "t"));
  EXPECT_EQ(stored->getObject("apiKey")->getObject("credential")->getValue<std::string>("type"),
            "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256");

  // V1 names the user by email; the parent may ask for it.
  auto v1 = json::parseObject(
      R"({"email":"alice@example.com","targetPublicKey":")" + target.publicKey + R"("})", "t");
  resultOf(gw.rootClient().submit("create_read_write_session",
                                  "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION", sub.id, v1),
           "createReadWriteSessionResult");
  // A bad target key is refused naming the field, and nothing is stored.
  p->set("targetPublicKey", "04abcd");
  EXPECT_THROW(alice.submit("create_read_write_session",
                            "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", sub.id, p),
               RequestError);

  auto ro = resultOf(alice.submit("create_read_only_session",
                                  "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", sub.id, json::object()),
                     "createReadOnlySessionResult");
  auto claims = gatewayJwtClaims(gw, ro->getValue<std::string>("session"), true);
  EXPECT_EQ(claims->getValue<std::string>("session_type"), "SESSION_TYPE_READ_ONLY");
  EXPECT_EQ(std::to_string(claims->getValue<int64_t>("exp")),
            ro->getValue<std::string>("sessionExpiry"));
}

// A session of a profile acts only within the profile's scope, a policy condition checked
// when the profile is written; sessions without a profile are not limited by one.
TEST_P(SessionsTest, ASessionActsOnlyWithinItsProfilesScope) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  auto profile = [&](const std::string& scope) {
    json::Object p = json::object();
    p->set("sessionProfileName", "p " + crypto::uuidV4().substr(0, 8));
    p->set("scope", scope);
    return alice.submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE", sub.id,
                        p);
  };
  for (auto [scope, expect] : std::vector<std::pair<std::string, std::string>>{
           {"activity.resource ==", "parameters.scope: invalid policy condition"},
           {"approvers.count() > 1", "unknown keyword 'approvers'"}}) {
    try {
      profile(scope);
      ADD_FAILURE() << "accepted scope " << scope;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  std::string tagsOnly =
      resultOf(profile("activity.resource == 'USER_TAG'"), "createSessionProfileResult")
          ->getValue<std::string>("sessionProfileId");
  auto scoped = newSessionKey(), plain = newSessionKey();
  json::Object login = loginParams(scoped.publicKey);
  login->set("sessionProfileId", tagsOnly);
  stampLogin(gw, alice, sub.id, login);
  stampLogin(gw, alice, sub.id, loginParams(plain.publicKey));

  Client scopedSession = gw.clientWith(scoped.stamper()),
         plainSession = gw.clientWith(plain.stamper());
  resultOf(createUserTagWith(scopedSession, sub.id), "createUserTagResult");
  // Alice is the sub-organization's root quorum, yet her scoped session cannot create users.
  EXPECT_NE(
      failureOf(createUsersWith(scopedSession, sub.id))
          .find("session of profile " + tagsOnly + ": its scope does not allow this activity"),
      std::string::npos);
  resultOf(createUsersWith(plainSession, sub.id), "createUsersResult");
}

TEST_P(SessionsTest, AttestedStampLogsInOnceAndOnlyPollsAfterwards) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  auto session = newSessionKey();
  std::string token = emailVerificationToken(gw, "alice@example.com", session);

  // The client knows only the parent: the login lands in alice's sub-organization.
  Client attested = gw.clientWith(std::make_shared<AttestedStamper>(session, token));
  auto activity = attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN",
                                  gw.root().organizationId, loginParams(session.publicKey));
  EXPECT_EQ(activity->getValue<std::string>("organizationId"), sub.id);
  auto claims = gatewayJwtClaims(
      gw, resultOf(activity, "stampLoginResult")->getValue<std::string>("session"), true);
  EXPECT_EQ(claims->getValue<std::string>("organization_id"), sub.id);
  EXPECT_EQ(claims->getValue<std::string>("user_id"), sub.userId);
  // The poll after it is allowed with the same stamp.
  json::Object poll = json::object();
  poll->set("organizationId", sub.id);
  poll->set("activityId", activity->getValue<std::string>("id"));
  EXPECT_EQ(
      attested.query("get_activity", poll)->getObject("activity")->getValue<std::string>("status"),
      "ACTIVITY_STATUS_COMPLETED");
  // What one login stored: the token spent, one session key, one activity.
  auto stored = [&] {
    return std::vector<int64_t>{
        gw.count("SELECT COUNT(*) FROM spent_verification_tokens"),
        gw.count("SELECT COUNT(*) FROM api_keys WHERE user_id = ? AND credential_type = "
                 "'CREDENTIAL_TYPE_LOGIN'",
                 {sub.userId}),
        gw.count("SELECT COUNT(*) FROM activities WHERE organization_id = ?", {sub.id})};
  };
  const std::vector<int64_t> once = stored();
  EXPECT_EQ(once[0], 1);
  EXPECT_EQ(once[1], 1);
  // The token was spent: the same login again, by the same key it is bound to, is refused as
  // spent (nothing else differs from the first), and stores nothing.
  auto refusedLogin = [&](Client& client, const std::string& publicKey) {
    try {
      auto a =
          client.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", sub.id, loginParams(publicKey));
      ADD_FAILURE() << "a second login was accepted: " << json::stringify(a);
      return std::pair<int, std::string>{0, ""};
    } catch (const RequestError& e) {
      return std::pair<int, std::string>{e.httpStatus(), e.what()};
    }
  };
  auto [spentStatus, spent] = refusedLogin(attested, session.publicKey);
  EXPECT_EQ(spentStatus, 400) << spent;
  EXPECT_NE(spent.find("invalid field X-Stamp-Attested: verification token"), std::string::npos)
      << spent;
  EXPECT_NE(spent.find("has already been used for a login"), std::string::npos) << spent;
  EXPECT_EQ(stored(), once);
  try {
    attested.query("whoami", orgBody(sub.id));
    ADD_FAILURE() << "whoami accepted an attested stamp";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
  }
  // A token bound to another key does not vouch for this one: refused for the binding (before
  // anything is spent), and nothing is stored.
  auto other = newSessionKey();
  Client mismatched = gw.clientWith(std::make_shared<AttestedStamper>(other, token));
  auto [boundStatus, bound] = refusedLogin(mismatched, other.publicKey);
  EXPECT_EQ(boundStatus, 401) << bound;
  EXPECT_NE(bound.find("is not bound to public key"), std::string::npos) << bound;
  EXPECT_EQ(bound.find("already been used"), std::string::npos) << bound;
  EXPECT_EQ(stored(), once);
  // The session key works.
  gw.clientWith(session.stamper()).query("whoami", orgBody(sub.id));
}

}  // namespace
}  // namespace signet::test
