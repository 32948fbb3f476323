// OpenID Connect through a real gateway and a real issuer on loopback: providers registered
// from verified tokens, oauth_login and the legacy oauth bundle, sign-up with a provider found
// again by list_suborgs, and every way a token is refused, with nothing written.
#include <atomic>
#include <chrono>
#include <thread>

#include "signet/bundles.hpp"
#include "signet/jwt.hpp"
#include "support/auth_fixtures.hpp"
#include "support/oidc_issuer.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class OauthTest : public BackendTest {};
SIGNET_BACKEND_SUITE(OauthTest);

const std::string kAudience = "web-client-id";

std::unique_ptr<TestGateway> gatewayFor(Backend backend,
                                        const std::vector<const OidcIssuer*>& issuers) {
  return std::make_unique<TestGateway>(
      backend, std::vector<std::string>{"sessions"}, std::filesystem::path{},
      std::map<std::string, json::Object>{
          {"sessions", OidcIssuer::sessionsSettingsTrusting(issuers)}});
}

json::Object providerParams(const std::string& token) {
  json::Object p = json::object();
  p->set("providerName", "Google");
  p->set("oidcToken", token);
  return p;
}

// Registers the issuer's `subject` (audience kAudience) as an OAuth provider of the
// sub-organization's root user, through create_oauth_providers; returns the provider id.
std::string addProvider(TestGateway& gw, const SubOrganization& sub, const OidcIssuer& issuer,
                        const std::string& subject, const std::string& type = "V2") {
  json::Array list = json::array();
  list->add(providerParams(issuer.idToken(subject, kAudience, "registration")));
  json::Object p = json::object();
  p->set("userId", sub.userId);
  p->set("oauthProviders", list);
  bool v2 = type == "V2";
  auto r = resultOf(gw.clientWith(sub.userKey.stamper)
                        .submit("create_oauth_providers",
                                v2 ? "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2"
                                   : "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
                                sub.id, p),
                    v2 ? "createOauthProvidersResultV2" : "createOauthProvidersResult");
  return r->getArray("providerIds")->getElement<std::string>(0);
}

json::Object loginParams(const std::string& token, const std::string& publicKey) {
  json::Object p = json::object();
  p->set("oidcToken", token);
  p->set("publicKey", publicKey);
  return p;
}

// oauth_login submitted by the parent organization for the sub-organization (as an app's
// backend does).
json::Object oauthLogin(TestGateway& gw, const std::string& subId, const json::Object& params) {
  return gw.rootClient().submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", subId, params);
}

int64_t stored(TestGateway& gw) {
  return gw.count("SELECT COUNT(*) FROM activities") + gw.count("SELECT COUNT(*) FROM api_keys");
}

TEST_P(OauthTest, GoogleStyleLoginThenWhoamiWithTheSessionKey) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "ann@example.com", "+14155550111");
  std::string providerId = addProvider(*gw, sub, issuer, "google-ann");

  for (const std::string alg : {"RS256", "ES256"}) {
    auto session = newSessionKey();
    std::string token =
        issuer.idToken("google-ann", kAudience, jwt::oidcNonce(session.publicKey), alg);
    auto activity = oauthLogin(*gw, sub.id, loginParams(token, session.publicKey));
    auto claims = gatewayJwtClaims(
        *gw, resultOf(activity, "oauthLoginResult")->getValue<std::string>("session"), true);
    EXPECT_EQ(claims->getValue<std::string>("user_id"), sub.userId) << alg;
    EXPECT_EQ(claims->getValue<std::string>("public_key"), session.publicKey);
    int64_t exp = claims->getValue<int64_t>("exp");
    EXPECT_NEAR(static_cast<double>(exp), gw->gateway().nowMs() / 1000.0 + 900, 5.0);
    EXPECT_EQ(gw->clientWith(session.stamper())
                  .query("whoami", orgBody(sub.id))
                  ->getValue<std::string>("userId"),
              sub.userId);
    // The token is a credential: once used, the stored intent no longer shows it.
    EXPECT_EQ(activity->getObject("intent")
                  ->getObject("oauthLoginIntent")
                  ->getValue<std::string>("oidcToken"),
              "<redacted>");
  }
  EXPECT_EQ(issuer.jwksFetches(), 1);  // fetched by create_oauth_providers, cached since

  // get_oauth_providers shows what registration stored; delete removes it, and the login
  // stops working.
  auto body = orgBody(sub.id);
  body->set("userId", sub.userId);
  Client ann = gw->clientWith(sub.userKey.stamper);
  auto providers = ann.query("get_oauth_providers", body)->getArray("oauthProviders");
  ASSERT_EQ(providers->size(), 1u);
  auto p = providers->getObject(0);
  EXPECT_EQ(p->getValue<std::string>("providerId"), providerId);
  EXPECT_EQ(p->getValue<std::string>("issuer"), issuer.url());
  EXPECT_EQ(p->getValue<std::string>("subject"), "google-ann");
  EXPECT_EQ(p->getValue<std::string>("audience"), kAudience);
  json::Object del = json::object();
  del->set("userId", sub.userId);
  del->set("providerIds", json::stringArray({providerId}));
  resultOf(
      ann.submit("delete_oauth_providers", "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS", sub.id, del),
      "deleteOauthProvidersResult");
  EXPECT_EQ(ann.query("get_oauth_providers", body)->getArray("oauthProviders")->size(), 0u);
  auto session = newSessionKey();
  std::string message = refusalOf([&] {
    return oauthLogin(
        *gw, sub.id,
        loginParams(issuer.idToken("google-ann", kAudience, jwt::oidcNonce(session.publicKey)),
                    session.publicKey));
  });
  EXPECT_NE(message.find("no user of organization"), std::string::npos) << message;
}

TEST_P(OauthTest, AnOidcAttestedStampLogsInWhereverTheProviderLives) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "gus@example.com", "+14155550116");
  addProvider(*gw, sub, issuer, "google-gus");
  auto session = newSessionKey();
  std::string token =
      issuer.idToken("google-gus", kAudience, jwt::oidcNonce(session.publicKey), "ES256");
  // The client knows only the parent: the login lands in gus's sub-organization.
  Client attested = gw->clientWith(
      std::make_shared<AttestedStamper>(session, token, "STAMP_ATTESTED_SCHEME_P256_OIDC"));
  json::Object p = json::object();
  p->set("publicKey", session.publicKey);
  auto activity =
      attested.submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", gw->root().organizationId, p);
  EXPECT_EQ(activity->getValue<std::string>("organizationId"), sub.id);
  auto claims = gatewayJwtClaims(
      *gw, resultOf(activity, "stampLoginResult")->getValue<std::string>("session"), true);
  EXPECT_EQ(claims->getValue<std::string>("user_id"), sub.userId);
  EXPECT_EQ(gw->clientWith(session.stamper())
                .query("whoami", orgBody(sub.id))
                ->getValue<std::string>("userId"),
            sub.userId);

  // A token whose nonce names another key does not vouch for this one; nor does an unknown
  // identity. Both are refused as unauthenticated, and nothing is stored.
  int64_t before = stored(*gw);
  auto other = newSessionKey();
  for (const auto& [stamper, expected] :
       std::vector<std::pair<std::shared_ptr<Stamper>, std::string>>{
           {std::make_shared<AttestedStamper>(other, token, "STAMP_ATTESTED_SCHEME_P256_OIDC"),
            "does not bind it to public key"},
           {std::make_shared<AttestedStamper>(
                other, issuer.idToken("google-nobody", kAudience, jwt::oidcNonce(other.publicKey)),
                "STAMP_ATTESTED_SCHEME_P256_OIDC"),
            "no user with OAuth provider"}}) {
    json::Object q = json::object();
    q->set("publicKey", other.publicKey);
    try {
      gw->clientWith(stamper).submit("stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", sub.id, q);
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 401);
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(stored(*gw), before);
}

TEST_P(OauthTest, LegacyOauthBundleStampsRequests) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "bo@example.com", "+14155550112");
  addProvider(*gw, sub, issuer, "google-bo", "V1");
  auto target = newSessionKey();
  json::Object p = json::object();
  p->set("oidcToken", issuer.idToken("google-bo", kAudience, jwt::oidcNonce(target.publicKey)));
  p->set("targetPublicKey", target.publicKey);
  auto r =
      resultOf(gw->rootClient().submit("oauth", "ACTIVITY_TYPE_OAUTH", sub.id, p), "oauthResult");
  EXPECT_EQ(r->getValue<std::string>("userId"), sub.userId);
  auto stamper = stamperFromBundle(target, r->getValue<std::string>("credentialBundle"));
  ASSERT_TRUE(stamper);
  EXPECT_EQ(
      gw->clientWith(stamper).query("whoami", orgBody(sub.id))->getValue<std::string>("userId"),
      sub.userId);
  EXPECT_EQ(gw->count("SELECT COUNT(*) FROM api_keys WHERE id = ? AND credential_type = ?",
                      {r->getValue<std::string>("apiKeyId"),
                       std::string("CREDENTIAL_TYPE_OAUTH_KEY_P256")}),
            1);
}

TEST_P(OauthTest, SignUpWithAProviderIsFoundAgainByListSuborgs) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  Key key = newKey();
  json::Object apiKey = json::object();
  apiKey->set("apiKeyName", "k");
  apiKey->set("publicKey", key.publicKey);
  apiKey->set("curveType", "API_KEY_CURVE_P256");
  json::Object user = json::object();
  user->set("userName", "cy");
  json::Array apiKeys = json::array();
  apiKeys->add(apiKey);
  user->set("apiKeys", apiKeys);
  user->set("authenticators", json::array());
  json::Array providers = json::array();
  providers->add(providerParams(issuer.idToken("google-cy", kAudience, "signup")));
  user->set("oauthProviders", providers);
  json::Array users = json::array();
  users->add(user);
  json::Object p = json::object();
  p->set("subOrganizationName", "cy's org");
  p->set("rootUsers", users);
  p->set("rootQuorumThreshold", 1);
  std::string subId = resultOf(gw->rootClient().submit("create_sub_organization",
                                                       "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                                                       gw->root().organizationId, p),
                               "createSubOrganizationResultV7")
                          ->getValue<std::string>("subOrganizationId");

  auto find = [&](const std::string& token) {
    auto body = orgBody(gw->root().organizationId);
    body->set("filterType", "OIDC_TOKEN");
    body->set("filterValue", token);
    auto ids = gw->rootClient().query("list_suborgs", body)->getArray("organizationIds");
    std::vector<std::string> out;
    for (size_t i = 0; i < ids->size(); ++i)
      out.push_back(ids->getElement<std::string>(static_cast<unsigned>(i)));
    return out;
  };
  // A fresh token of the same identity finds it; another audience or subject does not.
  EXPECT_EQ(find(issuer.idToken("google-cy", kAudience, "x")), std::vector<std::string>{subId});
  EXPECT_TRUE(find(issuer.idToken("google-cy", "other-app", "x")).empty());
  EXPECT_TRUE(find(issuer.idToken("google-dee", kAudience, "x")).empty());
  // An unsigned token naming the identity is refused, not matched.
  std::string forged = issuer.idToken("google-cy", kAudience, "x");
  forged = forged.substr(0, forged.rfind('.') + 1) + base64UrlEncode(std::string(256, 'x'));
  try {
    find(forged);
    ADD_FAILURE() << "a forged token was accepted";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("signature does not verify"), std::string::npos)
        << e.what();
  }

  // And the new user logs in with it.
  auto session = newSessionKey();
  auto login = oauthLogin(
      *gw, subId,
      loginParams(issuer.idToken("google-cy", kAudience, jwt::oidcNonce(session.publicKey)),
                  session.publicKey));
  EXPECT_EQ(status(login), kCompleted) << json::stringify(login);
}

TEST_P(OauthTest, EveryBadTokenIsRefusedNamingTheCheckAndNothingIsWritten) {
  OidcIssuer issuer, other;
  auto gw = gatewayFor(GetParam(), {&issuer, &other});
  auto sub = createSubOrganization(*gw, "di@example.com", "+14155550113");
  addProvider(*gw, sub, issuer, "google-di");
  auto session = newSessionKey();
  std::string nonce = jwt::oidcNonce(session.publicKey);
  int64_t now = systemNowMs() / 1000;
  auto claims = [&](const std::string& iss) {
    json::Object c = json::object();
    c->set("iss", iss);
    c->set("sub", "google-di");
    c->set("aud", kAudience);
    c->set("nonce", nonce);
    c->set("iat", now);
    c->set("exp", now + 600);
    return c;
  };
  auto expired = claims(issuer.url());
  expired->set("iat", now - 4000);
  expired->set("exp", now - 3600);
  auto notYet = claims(issuer.url());
  notYet->set("nbf", now + 3600);
  auto future = claims(issuer.url());
  future->set("iat", now + 3600);
  std::string good = issuer.idToken("google-di", kAudience, nonce);
  std::string tampered = good;
  char& c = tampered[good.rfind('.') + 10];  // one character of the signature
  c = c == 'A' ? 'B' : 'A';

  std::vector<std::pair<std::string, std::string>> cases = {
      {issuer.idToken("google-di", "another-app", nonce), "is not the audience"},
      {other.idToken("google-di", kAudience, nonce), "has an OAuth provider with issuer"},
      {issuer.sign(expired), "expired at"},
      {issuer.sign(notYet), "not valid before"},
      {issuer.sign(future), "issued in the future"},
      {issuer.idToken("google-di", kAudience, jwt::oidcNonce(newSessionKey().publicKey)),
       "does not bind the token"},
      {tampered, "signature does not verify"},
      {issuer.signWithUnpublishedKey(claims(issuer.url())), "even after refreshing"},
      {"not.a-token", "not a JWT"},
  };
  int64_t before = stored(*gw);
  for (const auto& c : cases) {
    const std::string& token = c.first;  // a lambda captures it: no structured binding (clang 14)
    const std::string& expected = c.second;
    std::string message =
        refusalOf([&] { return oauthLogin(*gw, sub.id, loginParams(token, session.publicKey)); });
    EXPECT_NE(message.find(expected), std::string::npos) << expected << " / " << message;
    EXPECT_NE(message.find("parameters.oidcToken"), std::string::npos) << message;
  }
  EXPECT_EQ(stored(*gw), before);

  // The unknown kid refreshed the keys once; asking again within the minute does not.
  int fetches = issuer.jwksFetches();
  refusalOf([&] {
    return oauthLogin(
        *gw, sub.id,
        loginParams(issuer.signWithUnpublishedKey(claims(issuer.url())), session.publicKey));
  });
  EXPECT_EQ(issuer.jwksFetches(), fetches);

  // Rotated keys: the new kid is unknown, so the keys are fetched again and it verifies.
  gw->gateway().setClock([] { return systemNowMs() + 61'000; });
  issuer.rotate();
  auto login = oauthLogin(
      *gw, sub.id,
      loginParams(issuer.idToken("google-di", kAudience, nonce, "RS256", systemNowMs() + 61'000),
                  session.publicKey));
  EXPECT_EQ(status(login), kCompleted) << json::stringify(login);
  EXPECT_EQ(issuer.jwksFetches(), fetches + 1);
}

TEST_P(OauthTest, ASlowOrDeadIssuerCostsOnlyItsOwnRequestsTheTimeout) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "ed@example.com", "+14155550114");
  addProvider(*gw, sub, issuer, "google-ed");
  gw->restart();  // the keys create_oauth_providers fetched are forgotten
  auto session = newSessionKey();
  std::string token = issuer.idToken("google-ed", kAudience, jwt::oidcNonce(session.publicKey));
  int64_t before = stored(*gw);

  issuer.holdAnswers();
  std::string slowMessage;
  std::atomic<bool> slowAnswered{false};
  auto started = std::chrono::steady_clock::now();
  std::thread slow([&] {
    slowMessage =
        refusalOf([&] { return oauthLogin(*gw, sub.id, loginParams(token, session.publicKey)); });
    slowAnswered = true;
  });
  // Meanwhile other requests, writes included, go through: they are answered while the slow
  // one still waits for the issuer (an order, not a time, so that ASan on 2 cores holds).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto other = gw->clientWith(sub.userKey.stamper);
  other.query("whoami", orgBody(sub.id));
  EXPECT_EQ(status(createUsersWith(other, sub.id)), kCompleted);
  EXPECT_FALSE(slowAnswered) << "the other requests waited behind the slow issuer";
  slow.join();
  auto slowTook = std::chrono::steady_clock::now() - started;
  issuer.release();
  EXPECT_LT(slowTook, std::chrono::seconds(8));  // the 1 s budget, not the issuer's 10 s
  // The client learns that the keys are unavailable, not what the network did.
  EXPECT_NE(slowMessage.find("issuer keys unavailable"), std::string::npos) << slowMessage;
  EXPECT_NE(slowMessage.find(issuer.url()), std::string::npos) << slowMessage;
  EXPECT_EQ(slowMessage.find("in time"), std::string::npos) << slowMessage;

  issuer.goDown();
  std::string downMessage =
      refusalOf([&] { return oauthLogin(*gw, sub.id, loginParams(token, session.publicKey)); });
  EXPECT_NE(downMessage.find("issuer keys unavailable"), std::string::npos) << downMessage;
  EXPECT_EQ(downMessage.find("refused"), std::string::npos) << downMessage;
  EXPECT_EQ(stored(*gw), before + 1);  // the create_users activity, and nothing of the logins
}

TEST_P(OauthTest, OidcClaimsAddAnAudienceAndTknonceBindsLikeNonce) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "jo@example.com", "+14155550119");
  Client jo = gw->clientWith(sub.userKey.stamper);
  // V2: a verified token plus oidcClaims registers the same identity for another client id.
  auto provider = providerParams(issuer.idToken("google-jo", kAudience, "r"));
  json::Object extra = json::object();
  extra->set("iss", issuer.url());
  extra->set("sub", "google-jo");
  extra->set("aud", "ios-client-id");
  provider->set("oidcClaims", extra);
  json::Array list = json::array();
  list->add(provider);
  json::Object p = json::object();
  p->set("userId", sub.userId);
  p->set("oauthProviders", list);
  resultOf(
      jo.submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", sub.id, p),
      "createOauthProvidersResultV2");
  // oidcClaims naming another subject than the token's is refused.
  extra->set("sub", "google-someone-else");
  std::string message = refusalOf([&] {
    return jo.submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", sub.id,
                     p);
  });
  EXPECT_NE(message.find("differ from the token's"), std::string::npos) << message;

  // A token for the iOS client id, bound by tknonce instead of nonce, logs in.
  auto session = newSessionKey();
  int64_t now = systemNowMs() / 1000;
  json::Object c = json::object();
  c->set("iss", issuer.url());
  c->set("sub", "google-jo");
  c->set("aud", json::stringArray({"ios-client-id", "some-other-party"}));
  c->set("tknonce", jwt::oidcNonce(session.publicKey));
  c->set("iat", now);
  c->set("exp", now + 600);
  auto a = oauthLogin(*gw, sub.id, loginParams(issuer.sign(c, "ES256"), session.publicKey));
  EXPECT_EQ(status(a), kCompleted) << json::stringify(a);
}

TEST_P(OauthTest, KeysAreKeptForTheirCacheControlLifetime) {
  OidcIssuer issuer;
  issuer.setCacheSeconds(30);
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "hal@example.com", "+14155550117");
  addProvider(*gw, sub, issuer, "google-hal");
  ASSERT_EQ(issuer.jwksFetches(), 1);
  auto loginAt = [&](int64_t offsetMs) {
    gw->gateway().setClock([offsetMs] { return systemNowMs() + offsetMs; });
    auto session = newSessionKey();
    auto a = oauthLogin(
        *gw, sub.id,
        loginParams(issuer.idToken("google-hal", kAudience, jwt::oidcNonce(session.publicKey)),
                    session.publicKey));
    EXPECT_EQ(status(a), kCompleted) << json::stringify(a);
  };
  loginAt(20'000);  // within max-age=30: the cached keys
  EXPECT_EQ(issuer.jwksFetches(), 1);
  loginAt(40'000);  // past it: fetched again
  EXPECT_EQ(issuer.jwksFetches(), 2);
  gw->gateway().setClock(systemNowMs);
}

TEST_P(OauthTest, AnHttpsIssuerIsTrustedThroughItsCertificateOnly) {
  OidcIssuer issuer(/*https=*/true);
  // Listed as an insecure issuer, since it is on loopback: the address may be used, but its
  // certificate must still check out.
  auto settingsWith = [&](const std::string& caFile) {
    json::Object oidc = json::object();
    oidc->set("insecureIssuers", json::stringArray({issuer.url()}));
    oidc->set("caFile", caFile);
    oidc->set("timeoutSeconds", "2");
    json::Object s = json::object();
    s->set("oidc", oidc);
    return std::map<std::string, json::Object>{{"sessions", s}};
  };
  // Trusting the issuer's CA: the keys are fetched over TLS and the login works.
  TestGateway gw(GetParam(), {"sessions"}, {}, settingsWith(issuer.certificate().string()));
  auto sub = createSubOrganization(gw, "ivy@example.com", "+14155550118");
  addProvider(gw, sub, issuer, "google-ivy");
  auto session = newSessionKey();
  auto a = oauthLogin(
      gw, sub.id,
      loginParams(issuer.idToken("google-ivy", kAudience, jwt::oidcNonce(session.publicKey)),
                  session.publicKey));
  EXPECT_EQ(status(a), kCompleted) << json::stringify(a);

  // Not trusting it: the system store does not know the certificate, and nothing is fetched.
  TestGateway untrusting(GetParam(), {"sessions"}, {}, settingsWith(""));
  auto other = createSubOrganization(untrusting, "ivy@example.com", "+14155550118");
  int fetches = issuer.jwksFetches();
  json::Array list = json::array();
  list->add(providerParams(issuer.idToken("google-ivy", kAudience, "r")));
  json::Object p = json::object();
  p->set("userId", other.userId);
  p->set("oauthProviders", list);
  std::string message = refusalOf([&] {
    return untrusting.clientWith(other.userKey.stamper)
        .submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", other.id, p);
  });
  // What the client is told says nothing of the network (the certificate error is logged).
  EXPECT_NE(message.find("issuer keys unavailable"), std::string::npos) << message;
  EXPECT_EQ(message.find("ertificate"), std::string::npos) << message;
  EXPECT_EQ(issuer.jwksFetches(), fetches);
}

// An issuer the operator no longer lists stays trusted while a provider stored from one of its
// verified tokens exists; an issuer someone merely stated (bare oidcClaims) does not become so.
TEST_P(OauthTest, AStoredProviderKeepsItsIssuerTrustedOnlyWhenItsTokenWasVerified) {
  OidcIssuer issuer;
  auto gw = gatewayFor(GetParam(), {&issuer});
  auto sub = createSubOrganization(*gw, "gus@example.com", "+14155550121");
  addProvider(*gw, sub, issuer, "google-gus");
  // A provider stated by claims alone, for another issuer.
  const std::string stated = "https://idp.example.net";
  json::Object claims = json::object();
  claims->set("iss", stated);
  claims->set("sub", "gus");
  claims->set("aud", kAudience);
  json::Object provider = json::object();
  provider->set("providerName", "stated");
  provider->set("oidcClaims", claims);
  json::Array list = json::array();
  list->add(provider);
  json::Object p = json::object();
  p->set("userId", sub.userId);
  p->set("oauthProviders", list);
  resultOf(
      gw->clientWith(sub.userKey.stamper)
          .submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", sub.id, p),
      "createOauthProvidersResultV2");

  // The operator takes the loopback issuer off the list.
  gw->restart([](Config& c) { c.pluginSettings["sessions"] = json::object(); });
  auto session = newSessionKey();
  std::string stillTrusted = refusalOf([&] {
    return oauthLogin(
        *gw, sub.id,
        loginParams(issuer.idToken("google-gus", kAudience, jwt::oidcNonce(session.publicKey)),
                    session.publicKey));
  });
  // Trusted, so its keys were asked for; on loopback over plain HTTP, which only a listed issuer
  // may be, they are refused: unavailable, not untrusted.
  EXPECT_NE(stillTrusted.find("issuer keys unavailable"), std::string::npos) << stillTrusted;
  json::Object made = json::object();
  made->set("iss", stated);
  made->set("sub", "gus");
  made->set("aud", kAudience);
  made->set("nonce", jwt::oidcNonce(session.publicKey));
  made->set("iat", systemNowMs() / 1000);
  made->set("exp", systemNowMs() / 1000 + 600);
  std::string notTrusted = refusalOf(
      [&] { return oauthLogin(*gw, sub.id, loginParams(issuer.sign(made), session.publicKey)); });
  EXPECT_NE(notTrusted.find("issuer not trusted"), std::string::npos) << notTrusted;
}

TEST_P(OauthTest, TrustedIssuersMustBeHttpsAndDefaultToThePublicProviders) {
  try {
    TestGateway gw(
        GetParam(), {"sessions"}, {},
        {{"sessions", json::parseObject(R"({"oidc":{"trustedIssuers":["http://idp.example.net"]}})",
                                        "settings")}});
    ADD_FAILURE() << "a plain-http trusted issuer was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("plugins.settings.sessions.oidc.trustedIssuers"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("http://idp.example.net"), std::string::npos);
  }
  // Without the key, the public providers are the trusted ones (their keys are not fetched here:
  // no test leaves loopback), and an issuer no one chose is refused before any fetch.
  TestGateway gw(GetParam(), {"sessions"}, {}, {{"sessions", json::object()}});
  auto sub = createSubOrganization(gw, "hal@example.com", "+14155550122");
  OidcIssuer signer;
  json::Object claims = json::object();
  claims->set("iss", "https://evil.example.net");
  claims->set("sub", "hal");
  claims->set("aud", kAudience);
  claims->set("iat", systemNowMs() / 1000);
  claims->set("exp", systemNowMs() / 1000 + 600);
  std::string evil = refusalOf([&] {
    return oauthLogin(gw, sub.id, loginParams(signer.sign(claims), newSessionKey().publicKey));
  });
  EXPECT_NE(evil.find("issuer not trusted"), std::string::npos) << evil;
}

TEST_P(OauthTest, OnlyIssuersSomeoneChoseAreFetched) {
  OidcIssuer issuer;
  json::Object settings = json::object();  // the issuer is listed nowhere
  TestGateway gw(GetParam(), {"sessions"}, {}, {{"sessions", settings}});
  auto sub = createSubOrganization(gw, "fay@example.com", "+14155550115");
  json::Array list = json::array();
  list->add(providerParams(issuer.idToken("google-fay", kAudience, "r")));
  json::Object p = json::object();
  p->set("userId", sub.userId);
  p->set("oauthProviders", list);
  std::string message = refusalOf([&] {
    return gw.clientWith(sub.userKey.stamper)
        .submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", sub.id, p);
  });
  EXPECT_NE(message.find("issuer not trusted"), std::string::npos) << message;

  json::Object oidc = json::object();
  oidc->set("allowedIssuers", json::stringArray({"https://accounts.google.com"}));
  oidc->set("insecureIssuers", json::stringArray({issuer.url()}));
  json::Object restricted = json::object();
  restricted->set("oidc", oidc);
  TestGateway gw2(GetParam(), {"sessions"}, {}, {{"sessions", restricted}});
  auto sub2 = createSubOrganization(gw2, "fay@example.com", "+14155550115");
  p->set("userId", sub2.userId);
  message = refusalOf([&] {
    return gw2.clientWith(sub2.userKey.stamper)
        .submit("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", sub2.id, p);
  });
  EXPECT_NE(message.find("issuer not trusted"), std::string::npos) << message;
  EXPECT_NE(message.find("allowedIssuers"), std::string::npos) << message;
  EXPECT_EQ(issuer.jwksFetches(), 0);
}

}  // namespace
}  // namespace signet::test
