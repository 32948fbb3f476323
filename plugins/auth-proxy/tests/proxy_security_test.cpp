// What a stranger holding only an app's public config id can make the gateway do, through the
// auth proxy that answers without credentials: nothing internal is connected to, whatever a
// made-up token names; the answer does not tell an open port from a closed one; hanging
// issuers do not stall the API; a flood is charged to the proxy's budget, not the
// organization's; made-up config ids cost bounded lookups; and the verification tokens the
// proxy hands out are not in the store, its WAL or webhook bodies in clear.
#include <future>
#include <set>
#include <thread>

#include "proxy_fixture.hpp"
#include "signet/egress.hpp"
#include "signet/jwt.hpp"
#include "support/http_recorder.hpp"
#include "support/metric_sample.hpp"
#include "support/oidc_issuer.hpp"
#include "support/tcp_peer.hpp"

namespace signet::test {
namespace {

using namespace std::chrono_literals;

// What a stranger can do does not depend on the store: those tests run on SQLite alone.
constexpr Backend kStore = Backend::kSqlite;

class ProxySecurityTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ProxySecurityTest);

const std::string kOutbox = R"({"email":{"transport":"outbox"},"sms":{"transport":"outbox"}})";

// An ID token whose `iss` is `issuer`, signed by a key of the test's (OidcIssuer's): what anyone
// can make up.
std::string madeUpToken(const OidcIssuer& signer, const std::string& issuer,
                        const std::string& publicKey) {
  json::Object claims = json::object();
  claims->set("iss", issuer);
  claims->set("sub", "someone");
  claims->set("aud", "app");
  claims->set("nonce", jwt::oidcNonce(publicKey));
  int64_t now = systemNowMs() / 1000;
  claims->set("iat", now);
  claims->set("exp", now + 600);
  return signer.sign(claims, "ES256");
}

json::Object oauthLogin(const std::string& token, const std::string& publicKey) {
  json::Object b = json::object();
  b->set("oidcToken", token);
  b->set("publicKey", publicKey);
  return b;
}

// Every way a stranger (or a stamped caller) can hand the gateway an ID token, each answered
// with the refusal's message.
std::vector<std::string> everyTokenPath(TestGateway& gw, const ProxyClient& proxy,
                                        const std::string& token, const SessionKey& key) {
  std::vector<std::string> messages;
  messages.push_back(proxy.refused("/v1/oauth_login", oauthLogin(token, key.publicKey)).message);
  json::Object lookup = json::object();
  lookup->set("filterType", "OIDC_TOKEN");
  lookup->set("filterValue", token);
  messages.push_back(proxy.refused("/v1/account", lookup).message);
  json::Object provider = json::object();
  provider->set("providerName", "made up");
  provider->set("oidcToken", token);
  json::Array providers = json::array();
  providers->add(provider);
  json::Object signup = json::object();
  signup->set("apiKeys", json::array());
  signup->set("authenticators", json::array());
  signup->set("oauthProviders", providers);
  messages.push_back(proxy.refused("/v1/signup_v2", signup).message);
  // list_suborgs with OIDC_TOKEN, stamped by the root key.
  json::Object q = orgBody(gw.root().organizationId);
  q->set("filterType", "OIDC_TOKEN");
  q->set("filterValue", token);
  try {
    gw.rootClient().query("list_suborgs", q);
    ADD_FAILURE() << "list_suborgs took the token";
  } catch (const RequestError& e) {
    messages.push_back(e.what());
  }
  // An OIDC-attested stamp on stamp_login, the one activity it authenticates.
  AttestedStamper attested(key, token, "STAMP_ATTESTED_SCHEME_P256_OIDC");
  json::Object login = json::object();
  login->set("publicKey", key.publicKey);
  auto r = Client(gw.baseUrl(), std::shared_ptr<Stamper>(&attested, [](Stamper*) {}))
               .post("/public/v1/submit/stamp_login",
                     activityBody("ACTIVITY_TYPE_STAMP_LOGIN", gw.root().organizationId, login));
  EXPECT_EQ(r.status, 401) << r.body;
  messages.push_back(r.body);
  return messages;
}

TEST(ProxyStrangerTest, TokensNamingUntrustedIssuersMakeNoNetworkCall) {
  TcpPeer listener(TcpPeer::silent);
  OidcIssuer signer;
  // The default settings: no allowedIssuers, the public providers trusted.
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox));
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  auto key = newSessionKey();
  for (const std::string& issuer :
       {listener.url("https"), listener.url("https", "/.well-known/../x"), listener.url("http"),
        "https://[::ffff:127.0.0.1]:" + std::to_string(listener.port())}) {
    for (const auto& m : everyTokenPath(gw, proxy, madeUpToken(signer, issuer, key.publicKey), key))
      EXPECT_NE(m.find("issuer not trusted"), std::string::npos) << issuer << ": " << m;
  }
  EXPECT_EQ(listener.accepted(), 0);
}

TEST(ProxyStrangerTest, AnOpenAndAClosedPortGetTheSameAnswer) {
  TcpPeer open(TcpPeer::silent);  // accepts, then says nothing: not an issuer
  std::string closed = "https://127.0.0.1:" + std::to_string(closedPort());
  std::string opened = "https://127.0.0.1:" + std::to_string(open.port());
  OidcIssuer signer;
  // Both listed by the operator as insecure issuers, so that the gateway does try to fetch.
  json::Object oidc = json::object();
  oidc->set("insecureIssuers", json::stringArray({opened, closed}));
  oidc->set("timeoutSeconds", "1");
  json::Object sessions = json::parseObject(kOutbox, "outbox");
  sessions->set("oidc", oidc);
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {}, proxySettings(json::stringify(sessions)));
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  auto key = newSessionKey();
  auto answer = [&](const std::string& issuer) {
    auto r = proxy.send(
        "/v1/oauth_login",
        json::stringify(oauthLogin(madeUpToken(signer, issuer, key.publicKey), key.publicKey)));
    std::string body = r.body;
    for (size_t at; (at = body.find(issuer)) != std::string::npos;)
      body.replace(at, issuer.size(), "ISSUER");
    return std::to_string(r.status) + " " + body;
  };
  std::string fromOpen = answer(opened);
  std::string fromClosed = answer(closed);
  EXPECT_EQ(fromOpen, fromClosed);
  EXPECT_NE(fromOpen.find("issuer keys unavailable"), std::string::npos) << fromOpen;
  EXPECT_EQ(fromOpen.rfind("503 ", 0), 0u) << fromOpen;
  for (const char* network : {"refused", "eof", "in time", "ertificate", "TLS"})
    EXPECT_EQ(fromOpen.find(network), std::string::npos) << fromOpen;
  EXPECT_EQ(open.accepted(), 1);  // asked once; the failure is remembered for a few seconds
  EXPECT_EQ(answer(opened), fromOpen);
  EXPECT_EQ(open.accepted(), 1);
}

TEST(ProxyStrangerTest, HangingIssuersLeaveTheApiResponsive) {
  constexpr int kIssuers = 24;
  std::vector<std::unique_ptr<TcpPeer>> hanging;
  std::vector<std::string> urls;
  for (int i = 0; i < kIssuers; ++i) {
    hanging.push_back(std::make_unique<TcpPeer>(TcpPeer::silent));
    urls.push_back(hanging.back()->url("http", ""));
  }
  OidcIssuer signer;
  json::Object oidc = json::object();
  oidc->set("insecureIssuers", json::stringArray(urls));
  oidc->set("timeoutSeconds", "3");
  json::Object sessions = json::parseObject(kOutbox, "outbox");
  sessions->set("oidc", oidc);
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {}, proxySettings(json::stringify(sessions)));
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);

  const int bound = gw.gateway().config().server.egress.maxConcurrent;
  std::vector<std::future<HttpResponse>> logins;
  for (const auto& url : urls)
    logins.push_back(std::async(std::launch::async, [&, url] {
      auto key = newSessionKey();
      return proxy.send(
          "/v1/oauth_login",
          json::stringify(oauthLogin(madeUpToken(signer, url, key.publicKey), key.publicKey)));
    }));
  // Once every outbound slot for requests waits on a hanging issuer, the organization's own key
  // is answered as ever.
  ASSERT_TRUE(eventually([&] { return egress::inFlight() >= bound; }, 5000));
  for (int i = 0; i < 5; ++i) {
    auto started = std::chrono::steady_clock::now();
    auto who = gw.rootClient().query("whoami", orgBody(gw.root().organizationId));
    EXPECT_EQ(who->getValue<std::string>("organizationId"), gw.root().organizationId);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 1s) << "whoami " << i;
  }
  int busy = 0, unavailable = 0;
  for (auto& login : logins) {
    auto r = login.get();
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_EQ(headerOf(r, "Retry-After"), "1");
    if (r.body.find("EGRESS_BUSY") != std::string::npos ||
        r.body.find("in flight") != std::string::npos)
      ++busy;
    else if (r.body.find("issuer keys unavailable") != std::string::npos)
      ++unavailable;
  }
  // limits.egress.maxConcurrent (8) calls waited out their deadline; the rest were told at once.
  EXPECT_EQ(busy + unavailable, kIssuers);
  EXPECT_LE(unavailable, bound);
  EXPECT_GE(busy, kIssuers - bound);
}

TEST(ProxyStrangerTest, AnOtpVerifyFloodLeavesTheOrganizationsKeyUnthrottled) {
  // A small organization budget, so that a short flood would spend it; the proxy's own limits
  // high enough to let the flood through to the coordinator.
  // (The per-address limit is off: every request here comes from 127.0.0.1, the root key's
  // and the proxy's forwarding alike.)
  auto tight = [](Config& c) {
    c.server.rateLimit.perOrganizationPerSecond = 0.1;  // no refill to speak of in this test
    c.server.rateLimit.perAuthProxyPerSecond = 0.1;
    c.server.rateLimit.burst = 20;
    c.server.rateLimit.perIpPerSecond = 0;
  };
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {},
                 proxySettings(kOutbox, R"({"limits":{"requestsPerIp":{"count":1000}}})"), tight);
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  int forwarded = 0, proxyBudget = 0;
  for (int i = 0; i < 60; ++i) {
    json::Object verify = json::object();
    verify->set("otpId", crypto::uuidV4());
    verify->set("otpCode", "123456");
    auto r = proxy.refused("/v1/otp_verify", verify);
    if (r.status == 429 && r.message.find("auth-proxy budget of organization " +
                                          gw.root().organizationId) != std::string::npos)
      ++proxyBudget;  // the proxy's budget is spent: 429 from the coordinator
    else if (r.status == 400 && r.message.find("Invalid OTP code") != std::string::npos)
      ++forwarded;  // the coordinator ran it and found no such OTP
    else
      ADD_FAILURE() << r.status << " " << r.message;
  }
  // The proxy's budget holds: its burst of 20, then (next to) nothing.
  EXPECT_GE(forwarded, 19);
  EXPECT_LE(forwarded, 21);
  EXPECT_EQ(forwarded + proxyBudget, 60);
  // The organization's own key: every request answered.
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(gw.rootClient()
                  .query("whoami", orgBody(gw.root().organizationId))
                  ->getValue<std::string>("organizationId"),
              gw.root().organizationId);
}

TEST(ProxyStrangerTest, MadeUpConfigIdsCostBoundedLookups) {
  // Every request comes from 127.0.0.1: the per-address limits are out of the way.
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {},
                 proxySettings(kOutbox, R"({"limits":{"requestsPerIp":{"count":5000}}})"),
                 [](Config& c) { c.server.rateLimit.perIpPerSecond = 0; });
  enableProxy(gw);
  std::string url = gw.listenerUrl("auth-proxy", "proxy");
  auto lookups = [&] {
    auto text = httpGet(gw.baseUrl(), "/metrics").body;
    double n = metricSample(text,
                            "signet_http_requests_total{listener=\"main\",route=\"/plugins/"
                            "auth-proxy/proxy_config\",status=\"404\"}");
    return n < 0 ? 0 : static_cast<int>(n);
  };
  int before = lookups();
  // Ids that are not UUIDs are refused without asking the coordinator.
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(ProxyClient(url, "made-up-" + std::to_string(i), std::nullopt)
                  .refused("/v1/wallet_kit_config", json::object())
                  .status,
              401);
  EXPECT_EQ(lookups(), before);
  // 400 made-up UUIDs, twice: each looked up at most once (an unknown id is remembered for a
  // minute), and no more than 50 a second (past that the client is told to try again).
  std::vector<std::string> ids;
  for (int i = 0; i < 400; ++i) ids.push_back(crypto::uuidV4());
  std::set<std::string> knownUnknown;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& id : ids) {
      auto r = ProxyClient(url, id, std::nullopt).refused("/v1/wallet_kit_config", json::object());
      EXPECT_TRUE(r.status == 401 || r.status == 503) << r.status << " " << r.message;
      if (r.status == 401) knownUnknown.insert(id);
    }
  EXPECT_EQ(lookups() - before, static_cast<int>(knownUnknown.size()));
  EXPECT_GE(knownUnknown.size(), 50u);
}

TEST_P(ProxySecurityTest, VerificationTokensAreNotStoredInClear) {
  HttpRecorder receiver;
  auto settings = proxySettings(kOutbox);
  settings["webhooks"] = json::parseObject(
      R"({"allowInsecureUrls":true,"retryScheduleSeconds":[1],"timeoutSeconds":2})", "webhooks");
  TestGateway gw(GetParam(), {"sessions", "auth-proxy", "webhooks"}, {}, settings);
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  // A webhook endpoint of the organization, receiving every activity update.
  json::Object sub = json::object();
  sub->set("eventType", "ACTIVITY_UPDATES");
  json::Array subs = json::array();
  subs->add(sub);
  json::Object endpoint = json::object();
  endpoint->set("url", receiver.url("/hooks"));
  endpoint->set("name", "receiver");
  endpoint->set("subscriptions", subs);
  resultOf(
      gw.rootClient().submit("create_webhook_endpoint", "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
                             gw.root().organizationId, endpoint),
      "createWebhookEndpointResult");

  json::Object init = json::object();
  init->set("otpType", "OTP_TYPE_EMAIL");
  init->set("contact", "vera@example.com");
  std::string otpId = proxy.ok("/v1/otp_init", init)->getValue<std::string>("otpId");
  json::Object verify = json::object();
  verify->set("otpId", otpId);
  verify->set("otpCode", codeIn(newestOutboxMessage(gw)));
  std::string token =
      proxy.ok("/v1/otp_verify", verify)->getValue<std::string>("verificationToken");
  ASSERT_GT(token.size(), 100u);

  // get_activity, by a caller allowed to read the organization's activities, still has it.
  auto list = gw.rootClient()
                  .query("list_activities", orgBody(gw.root().organizationId))
                  ->getArray("activities");
  std::string activityId;
  for (size_t i = 0; i < list->size(); ++i)
    if (list->getObject(i)->getValue<std::string>("type") == "ACTIVITY_TYPE_VERIFY_OTP")
      activityId = list->getObject(i)->getValue<std::string>("id");
  ASSERT_FALSE(activityId.empty());
  EXPECT_NE(json::stringify(list).find(token), std::string::npos);
  json::Object get = orgBody(gw.root().organizationId);
  get->set("activityId", activityId);
  auto activity = gw.rootClient().query("get_activity", get)->getObject("activity");
  EXPECT_EQ(resultOf(activity, "verifyOtpResult")->getValue<std::string>("verificationToken"),
            token);

  // The webhook saw the activity, with the token redacted.
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : receiver.requests())
      if (r.body.find(activityId) != std::string::npos) return true;
    return false;
  }));
  for (const auto& r : receiver.requests()) {
    EXPECT_EQ(r.body.find(token), std::string::npos) << r.body;
    if (r.body.find(activityId) != std::string::npos) {
      EXPECT_NE(r.body.find("<redacted>"), std::string::npos) << r.body;
    }
  }

  // Not in the store: the database files (SQLite's WAL included) or any table (PostgreSQL).
  if (GetParam() == Backend::kSqlite) {
    for (const char* file : TestGateway::kSqliteFiles) {
      std::string bytes = gw.sqliteFile(file);
      EXPECT_EQ(bytes.find(token), std::string::npos) << file;
      // Nor the part after the header, in case a page split it from its first bytes.
      EXPECT_EQ(bytes.find(token.substr(token.find('.') + 1, 60)), std::string::npos) << file;
    }
  } else {
    for (const char* table : {"activities", "activity_events"})
      EXPECT_EQ(gw.count(std::string("SELECT COUNT(*) FROM ") + table +
                             " t WHERE position(? in t::text) > 0",
                         {token}),
                0)
          << table;
  }
}

TEST(ProxyStrangerTest, PerContactLimitsCountTheMailbox) {
  TestGateway gw(kStore, {"sessions", "auth-proxy"}, {},
                 proxySettings(kOutbox, R"({"limits":{"otpInitPerContact":{"count":3}}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  auto init = [](const std::string& contact) {
    json::Object b = json::object();
    b->set("otpType", "OTP_TYPE_EMAIL");
    b->set("contact", contact);
    return b;
  };
  for (const char* c : {"Victim@Example.com", "victim+1@example.com", "\"victim\"@example.com"})
    proxy.ok("/v1/otp_init", init(c));
  auto r = proxy.refused("/v1/otp_init", init("victim+2@example.com"));
  EXPECT_EQ(r.status, 429);
  EXPECT_NE(r.message.find("otpInitPerContact"), std::string::npos) << r.message;
  proxy.ok("/v1/otp_init", init("other@example.com"));
}

}  // namespace
}  // namespace signet::test
