// MFA policies through a real gateway: their API and its refusals, and AUTHENTICATORS_NEEDED
// as the public docs describe it. The submitter and each approver present factors by stamping
// approve_activity with an API key, a passkey, a session key of a given profile or an attested
// stamp from an email OTP; only MFA-satisfied approvals count, and policies still deny at once.
#include "signet/jwt.hpp"
#include "support/auth_fixtures.hpp"
#include "support/oidc_issuer.hpp"
#include "support/software_authenticator.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

const std::string kAuthenticatorsNeeded = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED";

class MfaTest : public BackendTest {};
SIGNET_BACKEND_SUITE(MfaTest);

// requiredAuthenticationMethods from steps of "TYPE" or "TYPE:id" alternatives.
json::Array steps(const std::vector<std::vector<std::string>>& list) {
  json::Array out = json::array();
  for (const auto& step : list) {
    json::Array any = json::array();
    for (const auto& m : step) {
      json::Object o = json::object();
      auto colon = m.find(':');
      o->set("type", "AUTHENTICATION_TYPE_" + m.substr(0, colon));
      if (colon != std::string::npos) o->set("id", m.substr(colon + 1));
      any->add(o);
    }
    json::Object s = json::object();
    s->set("any", any);
    out->add(s);
  }
  return out;
}

json::Object mfaParams(const std::string& userId, const std::string& name,
                       const std::string& condition, const json::Array& required, int64_t order) {
  json::Object p = json::object();
  p->set("userId", userId);
  p->set("mfaPolicyName", name);
  p->set("condition", condition);
  p->set("requiredAuthenticationMethods", required);
  p->set("order", order);
  return p;
}

json::Object createMfa(Client& as, const std::string& org, const json::Object& params) {
  return as.submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", org, params);
}

std::string mfaId(const json::Object& activity) {
  return resultOf(activity, "createMfaPolicyResult")->getValue<std::string>("mfaPolicyId");
}

// Registers a passkey for `userId` through the API; returns it (its stamps present it).
std::shared_ptr<SoftwareAuthenticator> addPasskey(Client& as, const std::string& org,
                                                  const std::string& userId) {
  auto passkey = std::make_shared<SoftwareAuthenticator>();
  json::Array list = json::array();
  list->add(passkey->registration("phone", base64UrlEncode(crypto::randomBytes(32))));
  json::Object p = json::object();
  p->set("userId", userId);
  p->set("authenticators", list);
  resultOf(as.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", org, p),
           "createAuthenticatorsResult");
  return passkey;
}

json::Object approve(Client& as, const std::string& org, const json::Object& activity) {
  json::Object p = json::object();
  p->set("fingerprint", activity->getValue<std::string>("fingerprint"));
  return as.submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", org, p);
}

json::Array mfaStatuses(Client& as, const std::string& org, const json::Object& activity,
                        const std::string& userId = "") {
  json::Object b = orgBody(org);
  b->set("activityId", activity->getValue<std::string>("id"));
  if (!userId.empty()) b->set("userId", userId);
  return as.query("get_mfa_status", b)->getArray("mfaStatuses");
}

// update_mfa_policy changing one field (the others stay).
void updateMfa(Client& as, const std::string& org, const std::string& userId, const std::string& id,
               const std::string& field, const std::string& value) {
  json::Object up = json::object();
  up->set("userId", userId);
  up->set("mfaPolicyId", id);
  up->set(field, value);
  resultOf(as.submit("update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY", org, up),
           "updateMfaPolicyResult");
}

std::string apiKeyIdOf(TestGateway& gw, const std::string& userId) {
  std::string id;
  gw.write([&](Db& db) {
    id = db.queryOne("SELECT id FROM api_keys WHERE user_id = ?", {userId})->str("id");
  });
  return id;
}

// A 400 naming `expect`, and nothing written.
void expectRefused(TestGateway& gw, Client& as, const std::string& org, const json::Object& p,
                   const std::string& expect) {
  int64_t before = gw.count("SELECT COUNT(*) FROM mfa_policies");
  try {
    createMfa(as, org, p);
    ADD_FAILURE() << "accepted: " << json::stringify(p);
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400) << e.what();
    EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM mfa_policies"), before);
}

TEST_P(MfaTest, PoliciesAreWrittenReadAndRefusedWhenTheUserCannotMeetThem) {
  TestGateway gw(GetParam());
  Org o(gw);
  std::string u = o.user("u1");
  const std::string org = o.org();

  std::string sign = mfaId(createMfa(
      o.root(), org, mfaParams(u, "sign", "activity.action == 'SIGN'", steps({{"API_KEY"}}), 1)));
  std::string all =
      mfaId(createMfa(o.root(), org, mfaParams(u, "all", "true", steps({{"SESSION"}}), 0)));
  json::Object q = orgBody(org);
  q->set("userId", u);
  auto list = o.root().query("get_mfa_policies", q)->getArray("mfaPolicies");
  ASSERT_EQ(list->size(), 2u);  // lowest order first
  EXPECT_EQ(list->getObject(0)->getValue<std::string>("mfaPolicyId"), all);
  EXPECT_EQ(list->getObject(1)->getValue<std::string>("mfaPolicyId"), sign);
  q->set("mfaPolicyId", sign);
  auto got = o.root().query("get_mfa_policy", q)->getObject("mfaPolicy");
  EXPECT_EQ(got->getValue<std::string>("mfaPolicyName"), "sign");
  EXPECT_EQ(got->getValue<std::string>("condition"), "activity.action == 'SIGN'");
  EXPECT_EQ(got->getValue<std::string>("order"), "1");
  EXPECT_EQ(json::stringify(got->getArray("requiredAuthenticationMethods")),
            json::stringify(steps({{"API_KEY"}})));
  json::Object userQuery = orgBody(org);
  userQuery->set("userId", u);
  EXPECT_EQ(
      o.root().query("get_user", userQuery)->getObject("user")->getArray("mfaPolicies")->size(),
      2u);

  // Update: omitted fields stay.
  updateMfa(o.root(), org, u, sign, "mfaPolicyName", "signing");
  got = o.root().query("get_mfa_policy", q)->getObject("mfaPolicy");
  EXPECT_EQ(got->getValue<std::string>("mfaPolicyName"), "signing");
  EXPECT_EQ(got->getValue<std::string>("condition"), "activity.action == 'SIGN'");
  // A bad update is refused naming the field, and the policy stays as it was.
  json::Object bad = json::object();
  bad->set("userId", u);
  bad->set("mfaPolicyId", sign);
  bad->set("mfaPolicyName", "renamed");
  bad->set("requiredAuthenticationMethods", steps({{"FACE"}}));
  try {
    o.root().submit("update_mfa_policy", "ACTIVITY_TYPE_UPDATE_MFA_POLICY", org, bad);
    ADD_FAILURE() << "a bad update was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("requiredAuthenticationMethods[0].any[0].type"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(o.root()
                .query("get_mfa_policy", q)
                ->getObject("mfaPolicy")
                ->getValue<std::string>("mfaPolicyName"),
            "signing");

  // Refusals name the field and the value, and write nothing.
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", steps({{"FACE"}}), 0),
                "requiredAuthenticationMethods[0].any[0].type: \"AUTHENTICATION_TYPE_FACE\"");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", steps({{"EMAIL_OTP:abc"}}), 0),
                "any[0].id: Email OTP authenticators have no ids");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", json::array(), 0),
                "requiredAuthenticationMethods: must list at least one step");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", steps({{}}), 0),
                "requiredAuthenticationMethods[0].any: must list at least one method");
  // The steps' types are the shape's: checked at admission, naming the path.
  auto typed = steps({{"SESSION"}});
  typed->getObject(0)->getArray("any")->getObject(0)->set("type", 7);
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", typed, 0),
                "invalid field parameters.requiredAuthenticationMethods[0].any[0].type: expected");
  auto notAList = steps({{"SESSION"}});
  notAList->getObject(0)->set("any", "AUTHENTICATION_TYPE_SESSION");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", notAList, 0),
                "invalid field parameters.requiredAuthenticationMethods[0].any: expected");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "activity.action ==", steps({{"SESSION"}}), 0),
                "parameters.condition");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "", steps({{"SESSION"}}), 0),
                "parameters.condition: must not be empty");
  expectRefused(gw, o.root(), org, mfaParams(u, "x", "true", steps({{"SESSION"}}), -1),
                "parameters.order: must be 0 or more, got -1");
  // The user must already be able to meet every step.
  expectRefused(gw, o.root(), org, mfaParams(u, "pk", "true", steps({{"PASSKEY"}}), 0),
                "user (" + u +
                    ") cannot satisfy mfa policy requirement: mfa policy 'pk' requires one of "
                    "[\"Passkey\"] but user does not, or will not, have a matching credential");
  expectRefused(gw, o.root(), org,
                mfaParams(u, "otp", "true", steps({{"EMAIL_OTP", "SMS_OTP"}}), 0),
                "requires one of [\"Email OTP\", \"SMS OTP\"]");
  expectRefused(gw, o.root(), org,
                mfaParams(u, "key", "true", steps({{"API_KEY:" + crypto::uuidV4()}}), 0),
                "requires one of [\"API key\"]");
  // No sessions plugin: no session profile to pin, but the default session always exists.
  expectRefused(gw, o.root(), org,
                mfaParams(u, "s", "true", steps({{"SESSION:" + crypto::uuidV4()}}), 0),
                "requires one of [\"Session\"]");
  resultOf(createMfa(
               o.root(), org,
               mfaParams(
                   u, "default session", "true",
                   steps({{std::string("SESSION:") + "00000000-0000-0000-0000-000000000000"}}), 3)),
           "createMfaPolicyResult");

  // Errors past bad input fail the activity, naming why.
  EXPECT_NE(
      failureOf(createMfa(o.root(), org, mfaParams(u, "all", "true", steps({{"SESSION"}}), 5)))
          .find("MFA policy name must be unique per user: \"all\""),
      std::string::npos);
  EXPECT_NE(failureOf(createMfa(o.root(), org,
                                mfaParams(crypto::uuidV4(), "x", "true", steps({{"SESSION"}}), 0)))
                .find("not found in organization " + org),
            std::string::npos);
  EXPECT_NE(
      failureOf(createMfa(o.root(), org, mfaParams(u, "oauth", "true", steps({{"OAUTH"}}), 0)))
          .find("verified by the 'sessions' plugin, which is not enabled"),
      std::string::npos);

  // Delete one; deleting the user takes the rest with it.
  json::Object del = json::object();
  del->set("userId", u);
  del->set("mfaPolicyId", sign);
  resultOf(o.root().submit("delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", org, del),
           "deleteMfaPolicyResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM mfa_policies WHERE user_id = ?", {u}), 2);
  resultOf(o.deleteUsers(gw.root().userId, {u}), "deleteUsersResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM mfa_policies WHERE user_id = ?", {u}), 0);
}

TEST_P(MfaTest, TheSubmitterPresentsASecondFactorByApprovingWithIt) {
  TestGateway gw(GetParam());
  Org o(gw);
  const std::string org = o.org(), root = gw.root().userId;
  auto passkey = addPasskey(o.root(), org, root);
  mfaId(createMfa(
      o.root(), org,
      mfaParams(root, "new users", "activity.resource == 'USER' && activity.action == 'CREATE'",
                steps({{"API_KEY"}, {"PASSKEY"}}), 0)));
  int64_t users = gw.count("SELECT COUNT(*) FROM users");

  // MFA binds root users too: the root quorum's own activity waits, unexecuted.
  auto a = createUsersWith(o.root(), org);
  ASSERT_EQ(status(a), kAuthenticatorsNeeded) << json::stringify(a);
  EXPECT_TRUE(a->getValue<bool>("canApprove"));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users"), users);
  auto s = mfaStatuses(o.root(), org, a);
  ASSERT_EQ(s->size(), 1u);
  EXPECT_FALSE(s->getObject(0)->getValue<bool>("satisfied"));
  EXPECT_EQ(s->getObject(0)->getValue<std::string>("userId"), root);
  auto met = s->getObject(0)->getArray("satisfiedMethods");
  ASSERT_EQ(met->size(), 1u);
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("type"), "AUTHENTICATION_TYPE_API_KEY");
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("id"), apiKeyIdOf(gw, root));
  EXPECT_EQ(s->getObject(0)->getArray("requiredMethods")->size(), 2u);

  // Activities the condition does not match run at once.
  resultOf(createUserTagWith(o.root(), org), "createUserTagResult");

  // The same credential again presents nothing new.
  auto again = approve(o.root(), org, a);
  EXPECT_EQ(status(again), kAuthenticatorsNeeded);
  EXPECT_EQ(again->getArray("votes")->size(), 1u);

  // The passkey meets the second step: the activity runs as submitted.
  Client withPasskey = gw.clientWith(passkey);
  auto done = approve(withPasskey, org, a);
  ASSERT_EQ(status(done), kCompleted) << json::stringify(done);
  resultOf(done, "createUsersResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users"), users + 1);
  s = mfaStatuses(o.root(), org, a, root);
  ASSERT_EQ(s->size(), 1u);
  EXPECT_TRUE(s->getObject(0)->getValue<bool>("satisfied"));
  EXPECT_EQ(s->getObject(0)->getArray("satisfiedMethods")->size(), 2u);
}

TEST_P(MfaTest, OnlyTheFirstMatchingPolicyByOrderIsEnforced) {
  TestGateway gw(GetParam());
  Org o(gw);
  const std::string org = o.org(), root = gw.root().userId;
  addPasskey(o.root(), org, root);
  std::string strict = mfaId(
      createMfa(o.root(), org,
                mfaParams(root, "users", "activity.resource == 'USER'", steps({{"PASSKEY"}}), 0)));
  mfaId(createMfa(o.root(), org, mfaParams(root, "rest", "true", steps({{"API_KEY"}}), 1)));

  // A tag is not USER: the catch-all applies and the API key meets it.
  resultOf(createUserTagWith(o.root(), org), "createUserTagResult");
  // A user is: the passkey policy is enforced, though the catch-all would be met.
  EXPECT_EQ(status(createUsersWith(o.root(), org)), kAuthenticatorsNeeded);
  // Moved behind the catch-all, it is never reached.
  updateMfa(o.root(), org, root, strict, "order", "2");
  resultOf(createUsersWith(o.root(), org), "createUsersResult");
}

TEST_P(MfaTest, AnApprovalCountsOnlyOnceTheApproversFactorsArePresented) {
  TestGateway gw(GetParam());
  Org o(gw);
  const std::string org = o.org(), r1 = gw.root().userId;
  std::string r2 = o.user("r2");
  auto passkey = addPasskey(o.root(), org, r2);
  mfaId(createMfa(o.root(), org, mfaParams(r2, "everything", "true", steps({{"PASSKEY"}}), 0)));
  json::Object quorum = json::object();
  quorum->set("threshold", 2);
  quorum->set("userIds", json::stringArray({r1, r2}));
  resultOf(o.root().submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", org, quorum),
           "updateRootQuorumResult");

  auto a = createUsersWith(o.root(), org);
  ASSERT_EQ(status(a), kConsensus) << json::stringify(a);
  // R2's API key vote does not count until R2 presents the passkey.
  auto pending = o.vote(r2, a);
  ASSERT_EQ(status(pending), kAuthenticatorsNeeded) << json::stringify(pending);
  auto s = mfaStatuses(o.root(), org, a, r2);
  ASSERT_EQ(s->size(), 1u);
  EXPECT_FALSE(s->getObject(0)->getValue<bool>("satisfied"));
  EXPECT_EQ(mfaStatuses(o.root(), org, a, r1)->size(), 0u);  // no policy binds R1
  Client withPasskey = gw.clientWith(passkey);
  auto done = approve(withPasskey, org, a);
  ASSERT_EQ(status(done), kCompleted) << json::stringify(done);
  resultOf(done, "createUsersResult");
}

TEST_P(MfaTest, PoliciesStillDenyAndVotersStillRejectWhileFactorsAreOutstanding) {
  TestGateway gw(GetParam());
  Org o(gw);
  const std::string org = o.org();
  std::string u = o.user("u");
  addPasskey(o.root(), org, u);
  mfaId(createMfa(o.root(), org, mfaParams(u, "everything", "true", steps({{"PASSKEY"}}), 0)));
  o.policy("users", "EFFECT_ALLOW", "activity.resource == 'USER'");
  o.policy("no deletes", "EFFECT_DENY", "activity.action == 'DELETE'");

  // An explicit deny fails the activity at once: no factor could change that.
  auto denied = o.deleteUsers(u, {u});
  EXPECT_NE(failureOf(denied).find("denied by policy 'no deletes'"), std::string::npos);
  // An allowed one waits for the passkey; another member's rejection ends it.
  auto a = o.createUsers(u);
  ASSERT_EQ(status(a), kAuthenticatorsNeeded) << json::stringify(a);
  auto rejected = o.vote(gw.root().userId, a, false);
  EXPECT_EQ(status(rejected), "ACTIVITY_STATUS_REJECTED");
}

TEST_P(MfaTest, AnAttestedStampPresentsTheEmailOtpFactorOnce) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  mfaId(createMfa(
      alice, sub.id,
      mfaParams(sub.userId, "users", "activity.resource == 'USER'", steps({{"EMAIL_OTP"}}), 0)));

  auto a = createUsersWith(alice, sub.id);
  ASSERT_EQ(status(a), kAuthenticatorsNeeded) << json::stringify(a);
  auto key = newSessionKey();
  std::string token = emailVerificationToken(gw, "alice@example.com", key);
  Client attested = gw.clientWith(std::make_shared<AttestedStamper>(key, token));
  auto done = approve(attested, sub.id, a);
  ASSERT_EQ(status(done), kCompleted) << json::stringify(done);
  auto met = mfaStatuses(alice, sub.id, a)->getObject(0)->getArray("satisfiedMethods");
  ASSERT_EQ(met->size(), 1u);
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("type"), "AUTHENTICATION_TYPE_EMAIL_OTP");

  // The approval spent the token: it proves nothing a second time.
  auto b = createUsersWith(alice, sub.id);
  ASSERT_EQ(status(b), kAuthenticatorsNeeded);
  EXPECT_THROW(approve(attested, sub.id, b), RequestError);
  json::Object poll = orgBody(sub.id);
  poll->set("activityId", b->getValue<std::string>("id"));
  EXPECT_EQ(status(alice.query("get_activity", poll)->getObject("activity")),
            kAuthenticatorsNeeded);
}

TEST_P(MfaTest, AnOidcAttestedStampPresentsOAuthPinnedToItsProvider) {
  OidcIssuer issuer;
  TestGateway gw(GetParam(), {"sessions"}, {},
                 {{"sessions", OidcIssuer::sessionsSettingsTrusting({&issuer})}});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  // A step only OAuth meets is refused while alice has no provider, accepted once she has one.
  EXPECT_NE(refusalOf([&] {
              return createMfa(alice, sub.id,
                               mfaParams(sub.userId, "users", "activity.resource == 'USER'",
                                         steps({{"OAUTH"}}), 0));
            }).find("cannot satisfy mfa policy requirement"),
            std::string::npos);
  json::Object provider = json::object();
  provider->set("providerName", "Google");
  provider->set("oidcToken", issuer.idToken("google-alice", "app", "registration"));
  json::Array providers = json::array();
  providers->add(provider);
  json::Object add = json::object();
  add->set("userId", sub.userId);
  add->set("oauthProviders", providers);
  std::string providerId =
      resultOf(alice.submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
                            sub.id, add),
               "createOauthProvidersResultV2")
          ->getArray("providerIds")
          ->getElement<std::string>(0);
  mfaId(createMfa(alice, sub.id,
                  mfaParams(sub.userId, "users", "activity.resource == 'USER'",
                            steps({{"OAUTH:" + providerId}}), 0)));

  auto a = createUsersWith(alice, sub.id);
  ASSERT_EQ(status(a), kAuthenticatorsNeeded) << json::stringify(a);
  auto key = newSessionKey();
  Client attested = gw.clientWith(std::make_shared<AttestedStamper>(
      key, issuer.idToken("google-alice", "app", jwt::oidcNonce(key.publicKey)),
      "STAMP_ATTESTED_SCHEME_P256_OIDC"));
  auto done = approve(attested, sub.id, a);
  ASSERT_EQ(status(done), kCompleted) << json::stringify(done);
  auto met = mfaStatuses(alice, sub.id, a)->getObject(0)->getArray("satisfiedMethods");
  ASSERT_EQ(met->size(), 1u);
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("type"), "AUTHENTICATION_TYPE_OAUTH");
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("id"), providerId);
}

TEST_P(MfaTest, ASessionKeyPresentsItsSessionProfile) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, "alice@example.com", "+14155550123");
  Client alice = gw.clientWith(sub.userKey.stamper);
  json::Object profile = json::object();
  profile->set("sessionProfileName", "step-up");
  profile->set("scope", "true");
  std::string profileId =
      resultOf(alice.submit("create_session_profile", "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
                            sub.id, profile),
               "createSessionProfileResult")
          ->getValue<std::string>("sessionProfileId");
  // A profile that does not exist cannot be pinned; this one can.
  expectRefused(gw, alice, sub.id,
                mfaParams(sub.userId, "x", "true", steps({{"SESSION:" + crypto::uuidV4()}}), 0),
                "requires one of [\"Session\"]");
  mfaId(createMfa(alice, sub.id,
                  mfaParams(sub.userId, "users", "activity.resource == 'USER'",
                            steps({{"SESSION:" + profileId}}), 0)));

  auto login = [&](const SessionKey& key, const std::string& profileId) {
    json::Object p = json::object();
    p->set("publicKey", key.publicKey);
    if (!profileId.empty()) p->set("sessionProfileId", profileId);
    resultOf(alice.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", sub.id, p),
             "stampLoginResult");
  };
  // The default session does not meet a pinned profile; a session of that profile does.
  auto plain = newSessionKey(), stepUp = newSessionKey();
  login(plain, "");
  login(stepUp, profileId);
  Client plainSession = gw.clientWith(plain.stamper());
  auto a = createUsersWith(plainSession, sub.id);
  ASSERT_EQ(status(a), kAuthenticatorsNeeded) << json::stringify(a);
  auto met = mfaStatuses(alice, sub.id, a)->getObject(0)->getArray("satisfiedMethods");
  EXPECT_EQ(met->size(), 0u);
  Client stepUpSession = gw.clientWith(stepUp.stamper());
  auto done = approve(stepUpSession, sub.id, a);
  ASSERT_EQ(status(done), kCompleted) << json::stringify(done);
  met = mfaStatuses(alice, sub.id, a)->getObject(0)->getArray("satisfiedMethods");
  ASSERT_EQ(met->size(), 1u);
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("type"), "AUTHENTICATION_TYPE_SESSION");
  EXPECT_EQ(met->getObject(0)->getValue<std::string>("id"), profileId);
}

}  // namespace
}  // namespace signet::test
