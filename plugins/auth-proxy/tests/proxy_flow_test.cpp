// The auth proxy's flows as @turnkey/core drives them, over HTTP, through the proxy's own
// listener in front of a real gateway: email OTP sign-up and login (codes through a real SMTP
// server on loopback), SMS OTP (through an HTTP provider on loopback), OAuth sign-up and login
// against an OIDC issuer on loopback, account lookups, and the wallet-kit configuration.
#include <filesystem>

#include "proxy_fixture.hpp"
#include "signet/jwt.hpp"
#include "signet/quorum_envelope.hpp"
#include "support/http_recorder.hpp"
#include "support/oauth2_provider.hpp"
#include "support/oidc_issuer.hpp"
#include "support/smtp_sink.hpp"

namespace signet::test {
namespace {

class ProxyFlowTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ProxyFlowTest);

const std::string kEmail = "carol@example.com";
const std::string kPhone = "+14155550188";
const std::string kOrigin = "http://app.localhost:5173";

json::Object parse(const std::string& text) {
  return json::parseObject(text, "test body");
}

json::Object otpInitBody(const std::string& type, const std::string& contact) {
  json::Object b = json::object();
  b->set("otpType", type);
  b->set("contact", contact);
  return b;
}

json::Object apiKeyParam(const SessionKey& key) {
  json::Object k = json::object();
  k->set("apiKeyName", "session-" + key.publicKey.substr(0, 8));
  k->set("publicKey", key.publicKey);
  k->set("curveType", "API_KEY_CURVE_P256");
  return k;
}

TEST_P(ProxyFlowTest, EmailOtpSignUpThenLoginThroughSmtp) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-proxy-smtp-" + crypto::uuidV4());
  SmtpSink sink(dir);
  TestGateway gw(
      GetParam(), {"sessions", "auth-proxy"}, {},
      proxySettings(R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
                    std::to_string(sink.port()) +
                    R"(,"startTls":false},"fromAddress":"auth@signet.test"}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, proxyUserId] = enableProxy(gw);
  EXPECT_EQ(configureProxy(gw, R"({"allowedOrigins":[")" + kOrigin + R"("],
      "emailCustomizationParams":{"appName":"Carol's App"},"otpLength":6,"otpAlphanumeric":false,
      "sessionExpirationSeconds":1200,"replyToEmailAddress":"help@app.example"})")
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, kOrigin);

  // initOtp → the email, with the configuration's app name, length and reply-to.
  auto init = proxy.ok("/v1/otp_init", otpInitBody("OTP_TYPE_EMAIL", kEmail));
  std::string otpId = init->getValue<std::string>("otpId");
  auto mail = sink.waitForMessages(1);
  ASSERT_EQ(mail.size(), 1u);
  EXPECT_NE(mail[0].find("Carol's App"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("Reply-To: help@app.example"), std::string::npos) << mail[0];
  std::string code = codeIn(mail[0]);
  ASSERT_EQ(code.size(), 6u) << mail[0];

  // A wrong code: the coordinator's message comes through as it is.
  auto session = newSessionKey();
  json::Object wrong = json::object();
  wrong->set("otpId", otpId);
  wrong->set("otpCode", code == "000000" ? "111111" : "000000");
  wrong->set("publicKey", session.publicKey);
  auto refusal = proxy.refused("/v1/otp_verify", wrong);
  EXPECT_NE(refusal.message.find("Invalid OTP code"), std::string::npos) << refusal.message;

  json::Object verify = json::object();
  verify->set("otpId", otpId);
  verify->set("otpCode", code);
  verify->set("public_key", session.publicKey);  // the specification's spelling
  std::string token =
      proxy.ok("/v1/otp_verify", verify)->getValue<std::string>("verificationToken");
  EXPECT_EQ(gatewayJwtClaims(gw, token, false)->getValue<std::string>("public_key"),
            session.publicKey);

  // No account yet: an empty answer.
  json::Object lookup = json::object();
  lookup->set("filterType", "EMAIL");
  lookup->set("filterValue", kEmail);
  lookup->set("verificationToken", token);
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->size(), 0u);

  // signup_v2 as @turnkey/core's signUpWithOtp sends it: the contact and the token, no keys;
  // then it logs in with the same token, whose key becomes the session key.
  json::Object signup = json::object();
  signup->set("userEmail", kEmail);
  signup->set("verificationToken", token);
  signup->set("apiKeys", json::array());
  signup->set("authenticators", json::array());
  signup->set("oauthProviders", json::array());
  auto created = proxy.ok("/v1/signup_v2", signup);
  std::string subOrg = created->getValue<std::string>("organizationId");
  std::string userId = created->getValue<std::string>("userId");
  EXPECT_NE(subOrg, gw.root().organizationId);
  json::Object first = json::object();
  first->set("verificationToken", token);
  first->set("publicKey", session.publicKey);
  first->set("clientSignature", loginClientSignature(session, token, session.publicKey));
  EXPECT_FALSE(proxy.ok("/v1/otp_login_v2", first)->getValue<std::string>("session").empty());
  auto me = gw.clientWith(session.stamper()).query("whoami", orgBody(subOrg));
  EXPECT_EQ(me->getValue<std::string>("userId"), userId);
  // The contact is verified now.
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->getValue<std::string>("organizationId"), subOrg);
  // The token served one sign-up and one login; neither goes through again.
  EXPECT_NE(proxy.refused("/v1/otp_login_v2", first).message.find("already been used for a login"),
            std::string::npos);
  signup->set("userEmail", "carol.again@example.com");
  auto again = proxy.refused("/v1/signup_v2", signup);
  EXPECT_NE(again.message.find("already been used for a sign-up"), std::string::npos)
      << again.message;

  // A fresh code by email (the test's mail number `n`), verified with `key` bound to the token.
  auto freshToken = [&](const SessionKey& key, size_t n) {
    std::string id = proxy.ok("/v1/otp_init", otpInitBody("OTP_TYPE_EMAIL", kEmail))
                         ->getValue<std::string>("otpId");
    auto sent = sink.waitForMessages(n);
    EXPECT_EQ(sent.size(), n);
    verify->set("otpId", id);
    verify->set("otpCode", sent.size() == n ? codeIn(sent[n - 1]) : std::string());
    verify->set("public_key", key.publicKey);
    return proxy.ok("/v1/otp_verify", verify)->getValue<std::string>("verificationToken");
  };

  // Log in again: a fresh code, a fresh token, otp_login_v2 with the client signature.
  auto loginKey = newSessionKey();
  std::string token2 = freshToken(loginKey, 2);
  json::Object login = json::object();
  login->set("verificationToken", token2);
  login->set("publicKey", loginKey.publicKey);
  login->set("clientSignature", loginClientSignature(loginKey, token2, loginKey.publicKey));
  auto answer = proxy.send("/v1/otp_login_v2", json::stringify(login));
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(headerOf(answer, "Access-Control-Allow-Origin"), kOrigin);
  std::string jwt = parse(answer.body)->getValue<std::string>("session");
  auto claims = gatewayJwtClaims(gw, jwt, /*doubleHash=*/true);
  EXPECT_EQ(claims->getValue<std::string>("organization_id"), subOrg);
  EXPECT_EQ(claims->getValue<std::string>("user_id"), userId);
  // The configuration's session length, not the 900 s default.
  EXPECT_NEAR(static_cast<double>(claims->getValue<int64_t>("exp")),
              static_cast<double>(gw.gateway().nowMs() / 1000 + 1200), 5.0);
  auto viaSession = gw.clientWith(loginKey.stamper()).query("whoami", orgBody(subOrg));
  EXPECT_EQ(viaSession->getValue<std::string>("userId"), userId);

  // The specification's form: /v1/otp_login with client_signature, a hex signature over the
  // verification token by the key given to otp_verify as public_key.
  auto specKey = newSessionKey();
  std::string token3 = freshToken(specKey, 3);
  auto overToken = [&](const SessionKey& key) {
    auto sig = crypto::signEcdsa(crypto::Curve::kP256, key.privateKey, crypto::sha256(token3));
    Bytes raw(sig.r.begin(), sig.r.end());
    raw.insert(raw.end(), sig.s.begin(), sig.s.end());
    return toHex(raw);
  };
  json::Object spec = json::object();
  spec->set("verificationToken", token3);
  spec->set("organizationId", subOrg);
  spec->set("publicKey", specKey.publicKey);
  // Signed by another key: refused, and the token is not spent.
  spec->set("client_signature", overToken(newSessionKey()));
  auto forged = proxy.refused("/v1/otp_login", spec);
  EXPECT_EQ(forged.status, 400);
  EXPECT_NE(forged.message.find("parameters.clientSignature.signature"), std::string::npos)
      << forged.message;
  // The bound key's signature, but a session asked for another key: refused naming publicKey,
  // since a signature over the token alone does not say which key it authorizes.
  auto otherKey = newSessionKey();
  spec->set("publicKey", otherKey.publicKey);
  spec->set("client_signature", overToken(specKey));
  auto swapped = proxy.refused("/v1/otp_login", spec);
  EXPECT_NE(swapped.message.find("parameters.publicKey"), std::string::npos) << swapped.message;
  // As the specification writes it: a session for the bound key. The signature in DER here
  // (the refusals above sent r‖s): either encoding is taken.
  spec->set("publicKey", specKey.publicKey);
  spec->set("client_signature",
            toHex(crypto::encodeDerSignature(crypto::signEcdsa(
                crypto::Curve::kP256, specKey.privateKey, crypto::sha256(token3)))));
  std::string specSession = proxy.ok("/v1/otp_login", spec)->getValue<std::string>("session");
  EXPECT_EQ(gatewayJwtClaims(gw, specSession, true)->getValue<std::string>("user_id"), userId);
  EXPECT_EQ(gw.clientWith(specKey.stamper())
                .query("whoami", orgBody(subOrg))
                ->getValue<std::string>("userId"),
            userId);
  std::filesystem::remove_all(dir);
}

TEST_P(ProxyFlowTest, SmsOtpThroughTheHttpProviderAndLoginByV1) {
  HttpRecorder provider;
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {},
                 proxySettings(R"({"sms":{"transport":"http","url":")" +
                               provider.url("/v1/messages") + R"("}})"));
  enableFeature(gw, "FEATURE_NAME_SMS_AUTH");
  auto [configId, proxyUserId] = enableProxy(gw);
  configureProxy(gw, R"({"smsCustomizationParams":{"template":"Code: {{.OtpCode}}"}})");
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);

  // A sub-organization for the phone number, signed up through the proxy.
  auto key = newSessionKey();
  json::Object signup = json::object();
  signup->set("userPhoneNumber", kPhone);
  json::Array keys = json::array();
  keys->add(apiKeyParam(key));
  signup->set("apiKeys", keys);
  signup->set("authenticators", json::array());
  signup->set("oauthProviders", json::array());
  std::string subOrg = proxy.ok("/v1/signup", signup)->getValue<std::string>("organizationId");

  std::string otpId =
      proxy.ok("/v1/otp_init", otpInitBody("OTP_TYPE_SMS", kPhone))->getValue<std::string>("otpId");
  ASSERT_TRUE(provider.waitForRequests(1));
  auto sent = json::parseObject(provider.requests()[0].body, "sms");
  EXPECT_EQ(sent->getValue<std::string>("to"), kPhone);
  std::string code = codeIn(sent->getValue<std::string>("body"));
  ASSERT_FALSE(code.empty()) << provider.requests()[0].body;
  json::Object verify = json::object();
  verify->set("otpId", otpId);
  verify->set("otpCode", code);
  std::string token =
      proxy.ok("/v1/otp_verify", verify)->getValue<std::string>("verificationToken");
  // otp_login (V1), with no organization named: the proxy finds the sub-organization whose
  // verified phone number the token carries... which sign-up without a token did not verify.
  json::Object login = json::object();
  login->set("verificationToken", token);
  login->set("publicKey", key.publicKey);
  auto missing = proxy.refused("/v1/otp_login", login);
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.message.find("PHONE_NUMBER"), std::string::npos) << missing.message;
  // Naming it works: the coordinator checks the token against the user's phone number.
  login->set("organizationId", subOrg);
  login->set("publicKey", newSessionKey().publicKey);  // the signed-up key is registered already
  auto session = proxy.ok("/v1/otp_login", login)->getValue<std::string>("session");
  EXPECT_EQ(gatewayJwtClaims(gw, session, true)->getValue<std::string>("organization_id"), subOrg);
}

TEST_P(ProxyFlowTest, OAuthSignUpAndLoginAgainstAnIssuerOnLoopback) {
  OidcIssuer issuer;
  auto sessions = OidcIssuer::sessionsSettingsTrusting({&issuer});
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {},
                 proxySettings(json::stringify(sessions), R"({"configCacheSeconds":0})"));
  auto [configId, proxyUserId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, kOrigin);

  auto key = newSessionKey();
  std::string idToken = issuer.idToken("user-42", "web-client", jwt::oidcNonce(key.publicKey));
  json::Object lookup = json::object();
  lookup->set("filterType", "OIDC_TOKEN");
  lookup->set("filterValue", idToken);
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->size(), 0u);

  // completeOauth's sign-up: the token as the provider, and the session key.
  json::Object provider = json::object();
  provider->set("providerName", "OpenID Connect Provider 1");
  provider->set("oidcToken", idToken);
  json::Array providers = json::array();
  providers->add(provider);
  json::Array keys = json::array();
  keys->add(apiKeyParam(key));
  json::Object signup = json::object();
  signup->set("apiKeys", keys);
  signup->set("authenticators", json::array());
  signup->set("oauthProviders", providers);
  std::string subOrg = proxy.ok("/v1/signup_v2", signup)->getValue<std::string>("organizationId");
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->getValue<std::string>("organizationId"), subOrg);

  // oauth_login finds the sub-organization from the token.
  auto loginKey = newSessionKey();
  json::Object login = json::object();
  login->set("oidcToken",
             issuer.idToken("user-42", "web-client", jwt::oidcNonce(loginKey.publicKey)));
  login->set("publicKey", loginKey.publicKey);
  std::string session = proxy.ok("/v1/oauth_login", login)->getValue<std::string>("session");
  EXPECT_EQ(gatewayJwtClaims(gw, session, true)->getValue<std::string>("organization_id"), subOrg);

  // With OAuth left out of the allowed methods, the clients' "OAUTH disallowed" comes back.
  configureProxy(gw, R"({"allowedAuthMethods":["email"]})");
  auto disallowed = proxy.refused("/v1/oauth_login", login);
  EXPECT_NE(disallowed.message.find("OAUTH disallowed"), std::string::npos) << disallowed.message;
}

// X and Discord logins: the proxy finds the parent's OAuth 2.0 credential for (provider,
// client id), the coordinator exchanges the code and signs an ID token; sign-up with it and a
// wallet returns the wallet and its app proofs as the coordinator made them.
TEST_P(ProxyFlowTest, OAuth2CodeExchangeThenSignUpWithAWalletAndLogin) {
  OAuth2Provider provider("discord-client", "discord-secret");
  json::Object discord = json::object();
  discord->set("tokenUrl", provider.url("/token"));
  discord->set("userInfoUrl", provider.url("/discord/users/@me"));
  json::Object oauth2 = json::object();
  oauth2->set("discord", discord);
  oauth2->set("allowHttp", true);
  json::Object sessions = json::object();
  sessions->set("oauth2", oauth2);
  auto settings = proxySettings(json::stringify(sessions));
  TestGateway gw(GetParam(), {"sessions", "signing", "auth-proxy"}, {}, settings);
  auto [configId, proxyUserId] = enableProxy(gw);
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, kOrigin);

  // The operator registers the client secret, encrypted to the published key.
  auto published = json::parseObject(httpGet(gw.baseUrl(), "/.well-known/signet.json").body, "wk");
  auto key = *fromHex(published->getValue<std::string>("clientSecretEncryptionPublicKey"));
  std::string secret = "discord-secret";
  json::Object credential = json::object();
  credential->set("provider", "OAUTH2_PROVIDER_DISCORD");
  credential->set("clientId", "discord-client");
  credential->set("encryptedClientSecret",
                  toHex(quorum_envelope::seal(key, reinterpret_cast<const uint8_t*>(secret.data()),
                                              secret.size())));
  resultOf(
      gw.rootClient().submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                             gw.root().organizationId, credential),
      "createOauth2CredentialResult");

  auto exchange = [&](const std::string& user, const std::string& nonce,
                      const std::string& clientId = "discord-client") {
    std::string verifier = "verifier-" + crypto::uuidV4() + crypto::uuidV4();
    json::Object b = json::object();
    b->set("provider", "OAUTH2_PROVIDER_DISCORD");
    b->set("authCode", provider.issueCode(user, "https://app.example/cb", verifier));
    b->set("redirectUri", "https://app.example/cb");
    b->set("codeVerifier", verifier);
    b->set("nonce", nonce);
    b->set("clientId", clientId);
    return b;
  };
  auto unknown = proxy.refused("/v1/oauth2_authenticate", exchange("9", "n", "someone-else"));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.message.find("\"someone-else\""), std::string::npos) << unknown.message;

  auto signupKey = newSessionKey();
  std::string token =
      proxy.ok("/v1/oauth2_authenticate", exchange("4242", jwt::oidcNonce(signupKey.publicKey)))
          ->getValue<std::string>("oidcToken");
  json::Object provided = json::object();
  provided->set("providerName", "Discord");
  provided->set("oidcToken", token);
  json::Array providers = json::array();
  providers->add(provided);
  json::Object signup = json::object();
  signup->set("apiKeys", json::array());
  signup->set("authenticators", json::array());
  signup->set("oauthProviders", providers);
  signup->set("wallet", parse(R"({"walletName":"main","accounts":[{"curve":"CURVE_SECP256K1",
      "pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0",
      "addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]})"));
  auto created = proxy.ok("/v1/signup", signup);
  std::string subOrg = created->getValue<std::string>("organizationId");
  auto wallet = created->getObject("wallet");
  ASSERT_TRUE(wallet) << json::stringify(created);
  EXPECT_FALSE(wallet->getValue<std::string>("walletId").empty());
  EXPECT_EQ(wallet->getArray("addresses")->getElement<std::string>(0).rfind("0x", 0), 0u);
  auto proofs = created->getArray("appProofs");
  ASSERT_TRUE(proofs && proofs->size() == 1) << json::stringify(created);
  EXPECT_EQ(proofs->getObject(0)->getValue<std::string>("scheme"),
            "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256");

  auto session = newSessionKey();
  json::Object login = json::object();
  login->set(
      "oidcToken",
      proxy.ok("/v1/oauth2_authenticate", exchange("4242", jwt::oidcNonce(session.publicKey)))
          ->getValue<std::string>("oidcToken"));
  login->set("publicKey", session.publicKey);
  std::string jwt = proxy.ok("/v1/oauth_login", login)->getValue<std::string>("session");
  EXPECT_EQ(gatewayJwtClaims(gw, jwt, true)->getValue<std::string>("organization_id"), subOrg);
}

TEST_P(ProxyFlowTest, WalletKitConfigWithoutABodyAndAccountLookupsThatNeedProof) {
  TestGateway gw(GetParam(), {"sessions", "auth-proxy"}, {}, proxySettings("{}"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto [configId, proxyUserId] = enableProxy(gw);
  configureProxy(gw, R"({"allowedAuthMethods":["email","passkey","oauth"],
      "walletKitSettings":{"enabledSocialProviders":["google"],
        "oauthClientIds":{"google":"g-client"},"oauthRedirectUrl":"https://app.example/cb"},
      "sessionExpirationSeconds":3600,"otpLength":8,"otpAlphanumeric":false,
      "verificationTokenRequiredForGetAccountPii":true})");
  ProxyClient proxy(gw.listenerUrl("auth-proxy", "proxy"), configId, std::nullopt);

  // getAuthProxyConfig and getClientParams send no body at all.
  auto kit = proxy.send("/v1/wallet_kit_config", "");
  ASSERT_EQ(kit.status, 200) << kit.body;
  auto o = parse(kit.body);
  EXPECT_EQ(json::stringify(o->get("enabledProviders")), R"(["email","passkey","google"])");
  EXPECT_EQ(o->getValue<std::string>("sessionExpirationSeconds"), "3600");
  EXPECT_EQ(o->getValue<std::string>("organizationId"), gw.root().organizationId);
  EXPECT_EQ(o->getObject("oauthClientIds")->getValue<std::string>("google"), "g-client");
  EXPECT_EQ(o->getValue<std::string>("oauthRedirectUrl"), "https://app.example/cb");
  EXPECT_EQ(o->getValue<std::string>("otpLength"), "8");
  EXPECT_FALSE(o->getValue<bool>("otpAlphanumeric"));
  auto params = proxy.send("/v1/wallet_kit_client_params", "");
  ASSERT_EQ(params.status, 200) << params.body;
  EXPECT_EQ(params.body, "{}");

  // An existing user, looked up by email: refused without a token for that very address.
  auto sub = createSubOrganization(gw, kEmail, kPhone);
  json::Object lookup = json::object();
  lookup->set("filterType", "EMAIL");
  lookup->set("filterValue", kEmail);
  auto noProof = proxy.refused("/v1/account", lookup);
  EXPECT_EQ(noProof.status, 403);
  EXPECT_NE(noProof.message.find("verificationTokenRequiredForGetAccountPii"), std::string::npos);
  auto key = newSessionKey();
  lookup->set(
      "verificationToken",
      gw.mintVerificationToken("OTP_TYPE_EMAIL", "someone@else.example", gw.root().organizationId));
  EXPECT_NE(proxy.refused("/v1/account", lookup).message.find("not " + kEmail), std::string::npos);
  lookup->set("verificationToken", emailVerificationToken(gw, kEmail, key));
  // The user's email was never verified, so the verified lookup finds nothing...
  EXPECT_EQ(proxy.ok("/v1/account", lookup)->size(), 0u);
  // ...while a lookup by a filter that is no contact needs no proof.
  json::Object byName = json::object();
  byName->set("filterType", "NAME");
  byName->set("filterValue", "end user");
  EXPECT_EQ(proxy.ok("/v1/account", byName)->getValue<std::string>("organizationId"), sub.id);
}

}  // namespace
}  // namespace signet::test
