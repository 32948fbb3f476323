// What the auth proxy refuses, and what its key may do: the config id header, origins and
// preflights, a disabled proxy, the settings' checks, each abuse limit, the proxy user's
// policy (the key can run the forwarded activities and nothing else), and an activity that
// needs more approvals reported as an error rather than a hang.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>

#include "proxy_fixture.hpp"
#include "store/keyring.hpp"
#include "support/store_fingerprint.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class ProxyGuardTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ProxyGuardTest);

const std::string kOrigin = "https://app.example.com";
// Codes go to the outbox; the proxy reads its configuration afresh on every request.
const std::string kOutbox = R"({"email":{"transport":"outbox"},"sms":{"transport":"outbox"}})";
const std::string kNoCache = R"({"configCacheSeconds":0})";

json::Object emailOtp(const std::string& contact) {
  json::Object b = json::object();
  b->set("otpType", "OTP_TYPE_EMAIL");
  b->set("contact", contact);
  return b;
}

// A preflight as a browser sends it: OPTIONS with the origin and the headers it wants to send.
HttpResponse preflight(const std::string& url, const std::string& path, const std::string& origin) {
  Poco::URI uri(url);
  Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest req("OPTIONS", path, Poco::Net::HTTPMessage::HTTP_1_1);
  req.set("Origin", origin);
  req.set("Access-Control-Request-Method", "POST");
  req.set("Access-Control-Request-Headers", "content-type,x-auth-proxy-config-id");
  session.sendRequest(req);
  Poco::Net::HTTPResponse resp;
  std::istream& in = session.receiveResponse(resp);
  HttpResponse out;
  out.status = resp.getStatus();
  for (const auto& [n, v] : resp) out.headers.emplace_back(n, v);
  std::string ignored((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return out;
}

TEST_P(ProxyGuardTest, ConfigIdOriginsPreflightAndDisable) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox, kNoCache));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, userId] = enableProxy(gw);
  std::string url = gw.listenerUrl("auth-proxy", "proxy");
  ProxyClient proxy(url, configId, std::nullopt);

  // Open to every origin by default, requests without one included.
  EXPECT_EQ(proxy.send("/v1/wallet_kit_config", "").status, 200);
  // The header's name in any case; without it, or with an id nobody issued, refused.
  EXPECT_EQ(proxy.send("/v1/wallet_kit_config", "", "x-auth-proxy-config-id").status, 200);
  auto none = proxy.send("/v1/wallet_kit_config", "", std::nullopt);
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_NE(none.body.find("X-Auth-Proxy-Config-Id header is required"), std::string::npos);
  ProxyClient stranger(url, crypto::uuidV4(), std::nullopt);
  auto unknown = stranger.refused("/v1/wallet_kit_config", json::object());
  EXPECT_EQ(unknown.status, 401);
  EXPECT_NE(unknown.message.find("unknown X-Auth-Proxy-Config-Id"), std::string::npos);
  stranger.setConfigId("not-even-a-uuid");
  EXPECT_EQ(stranger.refused("/v1/wallet_kit_config", json::object()).status, 401);

  // Exact origins only.
  EXPECT_EQ(configureProxy(gw, R"({"allowedOrigins":[")" + kOrigin + R"("]})")
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  proxy.setOrigin(kOrigin);
  auto allowed = proxy.send("/v1/wallet_kit_config", "");
  EXPECT_EQ(allowed.status, 200) << allowed.body;
  EXPECT_EQ(headerOf(allowed, "Access-Control-Allow-Origin"), kOrigin);
  proxy.setOrigin("https://evil.example.com");
  auto evil = proxy.send("/v1/otp_init", json::stringify(emailOtp("a@b.example")));
  EXPECT_EQ(evil.status, 403) << evil.body;
  EXPECT_NE(evil.body.find("https://evil.example.com"), std::string::npos) << evil.body;
  EXPECT_EQ(headerOf(evil, "Access-Control-Allow-Origin"), "");
  proxy.setOrigin("https://app.example.com:8443");  // another port is another origin
  EXPECT_EQ(proxy.send("/v1/wallet_kit_config", "").status, 403);
  proxy.setOrigin(std::nullopt);
  EXPECT_EQ(proxy.send("/v1/wallet_kit_config", "").status, 403);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM session_otps"), 0);  // nothing was forwarded

  // Preflights carry no config id and are answered with what the proxy accepts.
  auto pre = preflight(url, "/v1/otp_init_v2", kOrigin);
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(headerOf(pre, "Access-Control-Allow-Origin"), kOrigin);
  EXPECT_NE(headerOf(pre, "Access-Control-Allow-Headers").find("X-Auth-Proxy-Config-Id"),
            std::string::npos);
  EXPECT_NE(headerOf(pre, "Access-Control-Allow-Methods").find("POST"), std::string::npos);

  // Disabled: every request is refused, saying so; enabling again serves the same id.
  proxy.setOrigin(kOrigin);
  EXPECT_EQ(gw.rootClient()
                .submit("disable_auth_proxy", "ACTIVITY_TYPE_DISABLE_AUTH_PROXY",
                        gw.root().organizationId, json::object())
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  auto off = proxy.refused("/v1/wallet_kit_config", json::object());
  EXPECT_EQ(off.status, 403);
  EXPECT_NE(off.message.find("disabled"), std::string::npos) << off.message;
  EXPECT_NE(proxy.refused("/v1/otp_init", emailOtp("a@b.example")).message.find("disabled"),
            std::string::npos);
  EXPECT_EQ(
      gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?", {"auth-proxy-key:" + configId}),
      0);
  auto again = enableProxy(gw);
  EXPECT_EQ(again.first, configId);
  EXPECT_EQ(again.second, userId);
  EXPECT_EQ(proxy.send("/v1/wallet_kit_config", "").status, 200);
  EXPECT_FALSE(
      proxy.ok("/v1/otp_init", emailOtp("a@b.example"))->getValue<std::string>("otpId").empty());
}

// A field an endpoint does not take is refused naming it, before anything runs, instead of
// being dropped: a client with a misspelt field would otherwise never learn it did nothing.
TEST_P(ProxyGuardTest, AFieldAnEndpointDoesNotTakeIsRefusedNamingIt) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox, kNoCache));
  auto [configId, userId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  auto lookup = json::parseObject(
      R"({"filterType":"EMAIL","filterValue":"nobody@example.com","filterValu":"x"})", "test");
  auto refusal = proxy.refused("/v1/account", lookup);
  EXPECT_EQ(refusal.status, 400);
  EXPECT_NE(refusal.message.find("invalid field body.filterValu: /v1/account takes no such field "
                                 "(it takes filterType, filterValue, verificationToken, "
                                 "oidcToken)"),
            std::string::npos)
      << refusal.message;
  lookup->remove("filterValu");
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->size(), 0u);
  auto none = proxy.refused("/v1/wallet_kit_config", json::parseObject(R"({"x":1})", "test"));
  EXPECT_NE(none.message.find("it takes none"), std::string::npos) << none.message;
  // The specification's snake-case forms are fields too.
  auto verify = json::parseObject(R"({"otpId":"nope","otpCode":"1","public_key":"02"})", "test");
  EXPECT_EQ(proxy.refused("/v1/otp_verify", verify).message.find("takes no such field"),
            std::string::npos);
}

TEST_P(ProxyGuardTest, SettingsAreCheckedFieldByFieldAndABadUpdateChangesNothing) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox, kNoCache));
  auto before = failureOf(configureProxy(gw, R"({"otpLength":7})"));
  EXPECT_NE(before.find("enable_auth_proxy first"), std::string::npos) << before;
  auto [configId, userId] = enableProxy(gw);
  ASSERT_EQ(configureProxy(gw, R"({"allowedOrigins":["https://a.example"],"otpLength":7})")
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  struct Case {
    std::string settings;
    std::string expected;  // in the message
  };
  for (const Case& c : std::vector<Case>{
           {R"({"allowedOrigins":["https://*.example.com"]})",
            R"(parameters.allowedOrigins[0]: "https://*.example.com" holds a partial wildcard)"},
           {R"({"allowedOrigins":["https://a.example/app"]})", "not an exact origin"},
           {R"({"allowedOrigins":["ftp://a.example"]})", "not an http:// or https:// origin"},
           {R"({"captchaEnabled":true})", "captchaEnabled: true is not supported"},
           {R"({"otpLength":5})", "parameters.otpLength: 5 is out of range"},
           {R"({"otpExpirationSeconds":601})", "otpExpirationSeconds: 601 is out of range"},
           {R"({"sendFromEmailAddress":"not-an-address"})", "sendFromEmailAddress"},
           {R"({"allowedAuthMethods":["telepathy"]})", R"("telepathy" is not one of)"},
           {R"({"walletKitSettings":{"enabledSocialProviders":["myspace"]}})", "myspace"},
           {R"({"favouriteColour":"blue"})",
            "invalid field parameters.favouriteColour: no such field; the fields are "
            "allowedOrigins, allowedAuthMethods,"},
           {R"({"emailCustomizationParams":{"appName":"Shop","colour":"blue"}})",
            "invalid field parameters.emailCustomizationParams.colour: no such field; the fields "
            "are appName, logoUrl, magicLinkTemplate, templateVariables, templateId"},
           {R"({"walletKitSettings":{"oauthClientIds":{"myspace":"id"}}})",
            "invalid field parameters.walletKitSettings.oauthClientIds.myspace: no such field"},
           {R"({"walletKitSettings":{"enabledSocialProviders":"google"}})",
            "invalid field parameters.walletKitSettings.enabledSocialProviders: expected an "
            "array, got a string"},
           {R"({"otpLength":"seven"})", R"(invalid field parameters.otpLength: "seven" is not)"},
           {R"({"otpAlphanumeric":"yes"})",
            "invalid field parameters.otpAlphanumeric: expected a boolean, got a string"},
           {R"({"emailCustomizationParams":{"logoUrl":"ftp://x.example/a.png"}})",
            R"(parameters.emailCustomizationParams.logoUrl: "ftp://x.example/a.png" is not an )"},
       }) {
    json::Object activity;
    std::string message;
    try {
      activity = configureProxy(gw, c.settings);
      message = failureOf(activity);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400) << c.settings;
      message = e.what();
    }
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.settings << " -> " << message;
  }
  auto settings = [&] {
    auto shown = gw.rootClient().query("get_auth_proxy_config", orgBody(gw.root().organizationId));
    EXPECT_FALSE(shown->getObject("config")->has("sealedApiKey"));
    return json::stringify(shown->getObject("config")->getObject("settings"));
  };
  EXPECT_EQ(settings(), R"({"allowedOrigins":["https://a.example"],"otpLength":7})");
  // Absent leaves a setting, null removes it, and a value replaces it.
  ASSERT_EQ(status(configureProxy(gw, R"({"otpLength":null,"sessionExpirationSeconds":"600"})")),
            "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(settings(),
            R"({"allowedOrigins":["https://a.example"],"sessionExpirationSeconds":600})");
}

// A malformed setting (a wrong type anywhere, an unknown name inside a nested object) is refused
// at admission, before the root quorum is asked: a member who is not in it gets the field's
// error, where a well-formed update of theirs is refused for the quorum. An unknown name at the
// top level is refused when the handler reads the intent, after the quorum (the test above).
TEST_P(ProxyGuardTest, AMalformedSettingIsRefusedBeforeTheQuorumIsAsked) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox, kNoCache));
  enableProxy(gw);
  Org o(gw);
  auto member = o.as(o.user("member"));
  const int64_t activitiesBefore = gw.count("SELECT COUNT(*) FROM activities");
  auto submit = [&](const std::string& settings) {
    return member.submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
                         o.org(), json::parseObject(settings, "test"));
  };
  for (const auto& [settings, expected] : std::vector<std::pair<std::string, std::string>>{
           {R"({"smsCustomizationParams":{"template":"x","sender":"y"}})",
            "invalid field parameters.smsCustomizationParams.sender: no such field; the fields "
            "are template"},
           {R"({"walletKitSettings":{"oauthClientIds":{"google":7}}})",
            "invalid field parameters.walletKitSettings.oauthClientIds.google: expected a string, "
            "got a number"},
           {R"({"allowedOrigins":"https://a.example"})",
            "invalid field parameters.allowedOrigins: expected an array, got a string"}}) {
    try {
      auto a = submit(settings);
      ADD_FAILURE() << settings << " was answered " << json::stringify(a);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400) << e.what();
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activitiesBefore);
  // The premise: the same member's well-formed update reaches the decision, which refuses it.
  auto denied = submit(R"({"otpLength":7})");
  EXPECT_NE(status(denied), kCompleted) << json::stringify(denied);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activitiesBefore + 1);
}

// Each limit on its own gateway, so that the others do not interfere.
TEST_P(ProxyGuardTest, EachAbuseLimitRefusesWith429NamingIt) {
  struct Case {
    std::string limit;
    int count;
    bool signup;
    bool sameContact;
  };
  for (const Case& c : std::vector<Case>{{"otpInitPerIp", 2, false, false},
                                         {"otpInitPerContact", 2, false, true},
                                         {"otpInitPerConfig", 2, false, false},
                                         {"signupPerIp", 1, true, false}}) {
    // Every other limit stays out of the way.
    auto limits = json::parseObject(
        R"({"otpInitPerIp":{"count":100},"otpInitPerConfig":{"count":100},
            "otpInitPerContact":{"count":100},"signupPerIp":{"count":100}})",
        "limits");
    auto chosen = json::object();
    chosen->set("count", c.count);
    chosen->set("windowSeconds", 60);
    limits->set(c.limit, chosen);
    auto proxySettingsJson = json::object();
    proxySettingsJson->set("limits", limits);
    TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {},
                   proxySettings(kOutbox, json::stringify(proxySettingsJson)));
    enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
    auto [configId, userId] = enableProxy(gw);
    ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
    auto request = [&](int i) {
      if (!c.signup) {
        std::string contact = c.sameContact ? "same@x.example" : std::to_string(i) + "@x.example";
        return proxy.send("/v1/otp_init", json::stringify(emailOtp(contact)));
      }
      json::Object b = json::object();
      b->set("userName", "u" + std::to_string(i));
      b->set("apiKeys", json::array());
      b->set("authenticators", json::array());
      b->set("oauthProviders", json::array());
      auto k = newKey();
      json::Object key = json::object();
      key->set("apiKeyName", "k");
      key->set("publicKey", k.publicKey);
      key->set("curveType", "API_KEY_CURVE_P256");
      json::Array keys = json::array();
      keys->add(key);
      b->set("apiKeys", keys);
      return proxy.send("/v1/signup", json::stringify(b));
    };
    for (int i = 0; i < c.count; ++i) EXPECT_EQ(request(i).status, 200) << c.limit << " " << i;
    auto over = request(c.count);
    EXPECT_EQ(over.status, 429) << c.limit << ": " << over.body;
    EXPECT_NE(over.body.find("limits." + c.limit), std::string::npos) << over.body;
  }
}

TEST_P(ProxyGuardTest, TheProxyKeyRunsTheForwardedActivitiesAndNothingElse) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto enabled = enableProxy(gw);
  // Named, not a structured binding: a lambda below captures them (clang 14 cannot).
  const std::string configId = enabled.first;
  const std::string userId = enabled.second;
  // The key as the proxy holds it, opened from the keyring the way only the coordinator can.
  std::shared_ptr<ApiKeyStamper> proxyKey;
  gw.write([&](Db& db) {
    DbKeyring keyring(db, gw.gateway().masterKey());
    proxyKey = std::make_shared<ApiKeyStamper>(
        keyring.open("auth-proxy-key:" + configId, "p256-private-key"), stamp::Scheme::kP256);
  });
  Client asProxy = gw.clientWith(proxyKey);
  const std::string& org = gw.root().organizationId;
  EXPECT_EQ(asProxy.query("whoami", orgBody(org))->getValue<std::string>("userId"), userId);

  json::Object otp = emailOtp("dave@x.example");
  otp->set("appName", "Direct");
  EXPECT_EQ(asProxy.submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", org, otp)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");

  // Anything else the proxy key submits is refused in the policy engine: what the root quorum
  // alone may run, as such, and the rest as implicitly denied, naming the type and the proxy's
  // user. Each is stored FAILED with that refusal, and nothing else in the store changes.
  const auto& attempts = kActivityRecordTables;
  auto before = fingerprintOfStore(gw, attempts);
  auto implicitDeny = [&](const std::string& type) {
    return "implicit deny: no policy of organization " + org + " allows " + type + " for user " +
           userId;
  };
  auto rootQuorumOnly = [&](const std::string& type) {
    return "only the root quorum of organization " + org + " can run " + type +
           "; policies cannot grant it";
  };
  auto denied = [&](const std::string& path, const std::string& type, const std::string& params,
                    const std::function<std::string(const std::string&)>& refusal) {
    auto a = asProxy.submit(path, type, org, json::parseObject(params, "params"));
    EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED") << json::stringify(a);
    if (a->getValue<std::string>("status") != "ACTIVITY_STATUS_FAILED") return;
    EXPECT_EQ(failureOf(a), refusal(type));
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE id = ? AND status = "
                       "'ACTIVITY_STATUS_FAILED'",
                       {a->getValue<std::string>("id")}),
              1);
  };
  denied("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3",
         R"({"users":[{"userName":"mallory","apiKeys":[],"authenticators":[],"oauthProviders":[],
             "userTags":[]}]})",
         implicitDeny);
  denied("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3",
         R"({"policyName":"let me","effect":"EFFECT_ALLOW","consensus":"true","condition":"true"})",
         implicitDeny);
  denied("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
         R"({"userId":")" + userId + R"(","apiKeys":[{"apiKeyName":"extra","publicKey":")" +
             newKey().publicKey + R"(","curveType":"API_KEY_CURVE_P256"}]})",
         implicitDeny);
  denied("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
         R"({"allowedOrigins":["*"]})", rootQuorumOnly);
  denied("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
         R"({"name":"FEATURE_NAME_EMAIL_AUTH","value":""})", rootQuorumOnly);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users WHERE name = 'mallory'"), 0);
  EXPECT_EQ(changedTables(before, fingerprintOfStore(gw, attempts)), "");

  // The policy says so, readably.
  auto policies = gw.rootClient().query("list_policies", orgBody(org))->getArray("policies");
  ASSERT_EQ(policies->size(), 1u);
  auto p = policies->getObject(0);
  EXPECT_EQ(p->getValue<std::string>("consensus"),
            "approvers.any(user, user.id == '" + userId + "')");
  EXPECT_NE(
      p->getValue<std::string>("condition").find("'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'"),
      std::string::npos);
}

TEST_P(ProxyGuardTest, AnActivityThatNeedsMoreApprovalsIsAnErrorNotAHang) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings(kOutbox));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, userId] = enableProxy(gw);
  const std::string& org = gw.root().organizationId;
  // The operator makes the root user co-sign what the proxy forwards.
  auto policies = gw.rootClient().query("list_policies", orgBody(org))->getArray("policies");
  std::string policyId = policies->getObject(0)->getValue<std::string>("policyId");
  json::Object update = json::object();
  update->set("policyId", policyId);
  update->set("policyConsensus", "approvers.any(user, user.id == '" + gw.root().userId + "')");
  ASSERT_EQ(gw.rootClient()
                .submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", org, update)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);
  auto r = proxy.refused("/v1/otp_init", emailOtp("erin@x.example"));
  EXPECT_NE(r.message.find("ACTIVITY_STATUS_CONSENSUS_NEEDED"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(org), std::string::npos) << r.message;

  // Back to the proxy's own policy, but with an MFA policy that wants another key of its user,
  // one the proxy does not hold, to sign too.
  update->set("policyConsensus", "approvers.any(user, user.id == '" + userId + "')");
  ASSERT_EQ(gw.rootClient()
                .submit("update_policy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", org, update)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  auto keys =
      json::parseObject(R"({"apiKeys":[{"apiKeyName":"operator's second key","publicKey":")" +
                            newKey().publicKey + R"(","curveType":"API_KEY_CURVE_P256"}]})",
                        "keys");
  keys->set("userId", userId);
  std::string secondKey =
      resultOf(
          gw.rootClient().submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", org, keys),
          "createApiKeysResult")
          ->getArray("apiKeyIds")
          ->getElement<std::string>(0);
  auto mfa = json::parseObject(R"({"mfaPolicyName":"a second key","condition":"true",
      "requiredAuthenticationMethods":[{"any":[{"type":"AUTHENTICATION_TYPE_API_KEY","id":")" +
                                   secondKey + R"("}]}],"order":1})",
                               "mfa");
  mfa->set("userId", userId);
  ASSERT_EQ(gw.rootClient()
                .submit("create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", org, mfa)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  auto second = proxy.refused("/v1/otp_init", emailOtp("erin@x.example"));
  EXPECT_NE(second.message.find("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"), std::string::npos)
      << second.message;
}

}  // namespace
}  // namespace signet::test
