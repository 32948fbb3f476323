// OAuth 2.0 without OpenID Connect, through a real gateway and a real provider on loopback:
// credentials whose secret is encrypted to the gateway and sealed at rest, the code exchanged
// with PKCE, the gateway's own ID token (verifiable from its published JWKS) accepted by
// sign-up and oauth_login, and every way an exchange is refused with nothing written.
#include "signet/bundles.hpp"
#include "signet/jwt.hpp"
#include "signet/quorum_envelope.hpp"
#include "support/auth_fixtures.hpp"
#include "support/oauth2_provider.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class OAuth2Test : public BackendTest {};
SIGNET_BACKEND_SUITE(OAuth2Test);

const std::string kClientId = "discord-client-id";
const std::string kSecret = "discord-client-secret";
const std::string kRedirect = "https://app.example/callback";

std::unique_ptr<TestGateway> gatewayFor(Backend backend, const OAuth2Provider& provider) {
  auto endpoints = [&](const std::string& userInfo) {
    json::Object e = json::object();
    e->set("tokenUrl", provider.url("/token"));
    e->set("userInfoUrl", provider.url(userInfo));
    return e;
  };
  json::Object oauth2 = json::object();
  oauth2->set("discord", endpoints("/discord/users/@me"));
  oauth2->set("x", endpoints("/x/users/me"));
  oauth2->set("allowHttp", true);
  oauth2->set("timeoutSeconds", "2");
  json::Object settings = json::object();
  settings->set("oauth2", oauth2);
  return std::make_unique<TestGateway>(backend, std::vector<std::string>{"sessions"},
                                       std::filesystem::path{},
                                       std::map<std::string, json::Object>{{"sessions", settings}});
}

json::Object wellKnown(TestGateway& gw, const std::string& name) {
  auto r = httpGet(gw.baseUrl(), "/.well-known/" + name);
  EXPECT_EQ(r.status, 200) << name;
  return json::parseObject(r.body, name);
}

// The secret as @turnkey/crypto's encryptOauth2ClientSecret makes it, to the published key.
std::string encryptedSecret(TestGateway& gw, const std::string& secret) {
  auto key = *fromHex(
      wellKnown(gw, "signet.json")->getValue<std::string>("clientSecretEncryptionPublicKey"));
  return toHex(
      quorum_envelope::seal(key, reinterpret_cast<const uint8_t*>(secret.data()), secret.size()));
}

std::string createCredential(TestGateway& gw,
                             const std::string& provider = "OAUTH2_PROVIDER_DISCORD",
                             const std::string& secret = kSecret) {
  json::Object p = json::object();
  p->set("provider", provider);
  p->set("clientId", kClientId);
  p->set("encryptedClientSecret", encryptedSecret(gw, secret));
  return resultOf(gw.rootClient().submit("create_oauth2_credential",
                                         "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                                         gw.root().organizationId, p),
                  "createOauth2CredentialResult")
      ->getValue<std::string>("oauth2CredentialId");
}

json::Object authenticateParams(const std::string& credentialId, const std::string& code,
                                const std::string& verifier, const std::string& nonce) {
  json::Object p = json::object();
  p->set("oauth2CredentialId", credentialId);
  p->set("authCode", code);
  p->set("redirectUri", kRedirect);
  p->set("codeVerifier", verifier);
  p->set("nonce", nonce);
  return p;
}

json::Object authenticate(TestGateway& gw, const json::Object& params) {
  return gw.rootClient().submit("oauth2_authenticate", "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
                                gw.root().organizationId, params);
}

std::string oidcTokenOf(const json::Object& activity) {
  return resultOf(activity, "oauth2AuthenticateResult")->getValue<std::string>("oidcToken");
}

// The claims of an ID token the gateway signed, checked against the key its JWKS publishes.
json::Object verifiedClaims(TestGateway& gw, const std::string& token) {
  auto key = wellKnown(gw, "jwks.json")->getArray("keys")->getObject(0);
  Bytes point{0x04};
  for (const char* c : {"x", "y"}) {
    auto b = *base64Decode(key->getValue<std::string>(c));
    point.insert(point.end(), b.begin(), b.end());
  }
  auto claims = jwt::verifyEs256(token, point, jwt::Hashing::kSingleSha256);
  EXPECT_TRUE(claims) << "the ID token does not verify under the published key";
  return claims ? *claims : json::object();
}

TEST_P(OAuth2Test, CredentialsKeepTheSecretSealedAndRefuseOneThatDoesNotOpen) {
  OAuth2Provider provider(kClientId, kSecret);
  auto gw = gatewayFor(GetParam(), provider);
  std::string id = createCredential(*gw);
  Client root = gw->rootClient();
  auto body = orgBody(gw->root().organizationId);
  body->set("oauth2CredentialId", id);
  auto c = root.query("get_oauth2_credential", body)->getObject("oauth2Credential");
  EXPECT_EQ(c->getValue<std::string>("provider"), "OAUTH2_PROVIDER_DISCORD");
  EXPECT_EQ(c->getValue<std::string>("clientId"), kClientId);
  EXPECT_EQ(root.query("list_oauth2_credentials", orgBody(gw->root().organizationId))
                ->getArray("oauth2Credentials")
                ->size(),
            1u);
  // At rest the secret is sealed under the master key, nowhere in the clear.
  EXPECT_EQ(gw->count("SELECT COUNT(*) FROM signet_secrets WHERE id = ? AND kind = ?",
                      {id, std::string("oauth2-client-secret")}),
            1);
  EXPECT_EQ(
      gw->count("SELECT COUNT(*) FROM oauth2_credentials WHERE encrypted_client_secret "
                "LIKE ? OR client_id LIKE ?",
                {"%" + toHex(Bytes(kSecret.begin(), kSecret.end())) + "%", "%" + kSecret + "%"}),
      0);

  // A secret encrypted to another key is refused, naming the field; nothing is stored.
  int64_t before = gw->count("SELECT COUNT(*) FROM activities");
  json::Object bad = json::object();
  bad->set("provider", "OAUTH2_PROVIDER_X");
  bad->set("clientId", "x");
  auto other = crypto::publicKeyFromPrivate(crypto::Curve::kP256,
                                            crypto::generatePrivateKey(crypto::Curve::kP256));
  bad->set("encryptedClientSecret",
           toHex(quorum_envelope::seal(other, reinterpret_cast<const uint8_t*>("s"), 1)));
  std::string message = refusalOf([&] {
    return root.submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                       gw->root().organizationId, bad);
  });
  EXPECT_NE(message.find("parameters.encryptedClientSecret"), std::string::npos) << message;
  bad->set("provider", "OAUTH2_PROVIDER_MYSPACE");
  message = refusalOf([&] {
    return root.submit("create_oauth2_credential", "ACTIVITY_TYPE_CREATE_OAUTH2_CREDENTIAL",
                       gw->root().organizationId, bad);
  });
  EXPECT_NE(message.find("OAUTH2_PROVIDER_MYSPACE"), std::string::npos) << message;
  EXPECT_EQ(gw->count("SELECT COUNT(*) FROM activities"), before);

  // Update replaces the secret; delete removes row and secret.
  json::Object update = json::object();
  update->set("oauth2CredentialId", id);
  update->set("provider", "OAUTH2_PROVIDER_X");
  update->set("clientId", "x-client");
  update->set("encryptedClientSecret", encryptedSecret(*gw, "another secret"));
  resultOf(root.submit("update_oauth2_credential", "ACTIVITY_TYPE_UPDATE_OAUTH2_CREDENTIAL",
                       gw->root().organizationId, update),
           "updateOauth2CredentialResult");
  EXPECT_EQ(root.query("get_oauth2_credential", body)
                ->getObject("oauth2Credential")
                ->getValue<std::string>("clientId"),
            "x-client");
  json::Object del = json::object();
  del->set("oauth2CredentialId", id);
  resultOf(root.submit("delete_oauth2_credential", "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
                       gw->root().organizationId, del),
           "deleteOauth2CredentialResult");
  EXPECT_EQ(gw->count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?", {id}), 0);
  EXPECT_THROW(root.query("get_oauth2_credential", body), RequestError);
}

TEST_P(OAuth2Test, DiscordStyleLoginSignsUpThenLogsInWithTheGatewaysOwnToken) {
  OAuth2Provider provider(kClientId, kSecret);
  auto gw = gatewayFor(GetParam(), provider);
  std::string credential = createCredential(*gw);

  // Discovery: the gateway describes itself as an issuer.
  auto config = wellKnown(*gw, "openid-configuration");
  std::string issuer = config->getValue<std::string>("issuer");
  EXPECT_EQ(config->getValue<std::string>("jwks_uri"), issuer + "/.well-known/jwks.json");

  // Sign-up: the token from oauth2_authenticate registers the provider of a new sub-org.
  std::string verifier = "verifier-" + crypto::uuidV4() + crypto::uuidV4();
  auto bearerKey = newSessionKey();
  auto p = authenticateParams(credential, provider.issueCode("4242", kRedirect, verifier), verifier,
                              "signup-nonce");
  p->set("bearerTokenTargetPublicKey", bearerKey.publicKey);
  std::string signupToken = oidcTokenOf(authenticate(*gw, p));
  auto claims = verifiedClaims(*gw, signupToken);
  EXPECT_EQ(claims->getValue<std::string>("iss"), issuer);
  EXPECT_EQ(claims->getValue<std::string>("aud"), kClientId);
  EXPECT_EQ(claims->getValue<std::string>("sub"), "discord:4242");
  EXPECT_EQ(claims->getValue<std::string>("nonce"), "signup-nonce");
  // The provider's bearer token, sealed to the key the client asked for.
  auto bearer = bundles::openCredentialBundle(
      bearerKey.privateKey, claims->getValue<std::string>("encrypted_bearer_token"));
  ASSERT_TRUE(bearer);
  EXPECT_EQ(std::string(bearer->data(), bearer->data() + bearer->size()),
            provider.lastAccessToken());

  Key key = newKey();
  auto signup = json::parseObject(
      R"({"subOrganizationName":"discord user","rootQuorumThreshold":1,"rootUsers":[{"userName":"d","apiKeys":[{"apiKeyName":"k","publicKey":")" +
          key.publicKey +
          R"(","curveType":"API_KEY_CURVE_P256"}],"authenticators":[],"oauthProviders":[{"providerName":"Discord","oidcToken":")" +
          signupToken + R"("}]}]})",
      "signup");
  std::string subId = resultOf(gw->rootClient().submit("create_sub_organization",
                                                       "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                                                       gw->root().organizationId, signup),
                               "createSubOrganizationResultV7")
                          ->getValue<std::string>("subOrganizationId");

  // Later: a new code, a token bound to the session key, oauth_login, whoami.
  auto session = newSessionKey();
  verifier = "verifier-" + crypto::uuidV4() + crypto::uuidV4();
  std::string loginToken = oidcTokenOf(authenticate(
      *gw, authenticateParams(credential, provider.issueCode("4242", kRedirect, verifier), verifier,
                              jwt::oidcNonce(session.publicKey))));
  json::Object login = json::object();
  login->set("oidcToken", loginToken);
  login->set("publicKey", session.publicKey);
  auto activity = gw->rootClient().submit("oauth_login", "ACTIVITY_TYPE_OAUTH_LOGIN", subId, login);
  resultOf(activity, "oauthLoginResult");
  EXPECT_EQ(gw->clientWith(session.stamper())
                .query("whoami", orgBody(subId))
                ->getValue<std::string>("organizationId"),
            subId);

  // X answers in its own shape; the subject says which provider it came from.
  std::string xCredential = createCredential(*gw, "OAUTH2_PROVIDER_X");
  verifier = "verifier-" + crypto::uuidV4() + crypto::uuidV4();
  auto xClaims = verifiedClaims(
      *gw, oidcTokenOf(authenticate(
               *gw, authenticateParams(xCredential, provider.issueCode("777", kRedirect, verifier),
                                       verifier, "n"))));
  EXPECT_EQ(xClaims->getValue<std::string>("sub"), "x:777");
}

TEST_P(OAuth2Test, ExchangesAreRefusedNamingTheCheckAndNothingIsWritten) {
  OAuth2Provider provider(kClientId, kSecret);
  auto gw = gatewayFor(GetParam(), provider);
  std::string credential = createCredential(*gw);
  std::string verifier = "verifier-" + crypto::uuidV4() + crypto::uuidV4();
  std::string code = provider.issueCode("1", kRedirect, verifier);
  oidcTokenOf(authenticate(*gw, authenticateParams(credential, code, verifier, "n1")));
  int64_t before = gw->count("SELECT COUNT(*) FROM activities");
  int requests = provider.tokenRequests();

  // The same code again (another nonce, so another request): refused before the provider is
  // asked.
  std::string message = refusalOf(
      [&] { return authenticate(*gw, authenticateParams(credential, code, verifier, "n2")); });
  EXPECT_NE(message.find("this code was already used"), std::string::npos) << message;
  EXPECT_EQ(provider.tokenRequests(), requests);

  // A verifier that does not match the challenge: the provider refuses, and says why.
  std::string fresh = provider.issueCode("1", kRedirect, verifier);
  message = refusalOf([&] {
    return authenticate(*gw, authenticateParams(credential, fresh, "another-verifier", "n3"));
  });
  EXPECT_NE(message.find("code_verifier does not match"), std::string::npos) << message;
  EXPECT_NE(message.find("parameters.authCode"), std::string::npos) << message;

  // A token endpoint that fails.
  provider.failTokenEndpointWith(500);
  std::string third = provider.issueCode("1", kRedirect, verifier);
  message = refusalOf(
      [&] { return authenticate(*gw, authenticateParams(credential, third, verifier, "n4")); });
  EXPECT_NE(message.find("answered HTTP 500"), std::string::npos) << message;
  provider.failTokenEndpointWith(0);

  // An unknown credential, and a bad bearer-token key, are refused before any exchange.
  requests = provider.tokenRequests();
  message = refusalOf([&] {
    return authenticate(*gw, authenticateParams(crypto::uuidV4(), third, verifier, "n5"));
  });
  EXPECT_NE(message.find("parameters.oauth2CredentialId"), std::string::npos) << message;
  auto badKey = authenticateParams(credential, third, verifier, "n6");
  badKey->set("bearerTokenTargetPublicKey", "02abc");
  message = refusalOf([&] { return authenticate(*gw, badKey); });
  EXPECT_NE(message.find("parameters.bearerTokenTargetPublicKey"), std::string::npos) << message;
  EXPECT_EQ(provider.tokenRequests(), requests);
  EXPECT_EQ(gw->count("SELECT COUNT(*) FROM activities"), before);
}

}  // namespace
}  // namespace signet::test
