// Tenancy through a real gateway: sub-organizations in every version, users, tags, passkeys,
// quorum, features, the plugin hooks, and the limits.
#include "support/oidc_issuer.hpp"
#include "support/software_authenticator.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class TenancyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(TenancyTest);

json::Object apiKeyParam(const std::string& publicKey, const std::string& name = "key") {
  json::Object k = json::object();
  k->set("apiKeyName", name);
  k->set("publicKey", publicKey);
  k->set("curveType", "API_KEY_CURVE_P256");
  return k;
}

json::Object userParams(const std::string& name, const std::vector<json::Object>& keys = {},
                        std::optional<std::string> email = {},
                        std::optional<std::string> phone = {}) {
  json::Object u = json::object();
  u->set("userName", name);
  if (email) u->set("userEmail", *email);
  if (phone) u->set("userPhoneNumber", *phone);
  json::Array a = json::array();
  for (const auto& k : keys) a->add(k);
  u->set("apiKeys", a);
  u->set("authenticators", json::array());
  u->set("oauthProviders", json::array());
  return u;
}

json::Object subOrgParams(const std::string& name, const std::vector<json::Object>& rootUsers,
                          int threshold = 1) {
  json::Object p = json::object();
  p->set("subOrganizationName", name);
  json::Array users = json::array();
  for (const auto& u : rootUsers) users->add(u);
  p->set("rootUsers", users);
  p->set("rootQuorumThreshold", threshold);
  return p;
}

// A gateway with the sessions plugin, which verifies the OIDC tokens of OAuth providers,
// trusting `issuer`.
TestGateway oidcGateway(Backend backend, const OidcIssuer& issuer) {
  return TestGateway(backend, {"sessions"}, {},
                     {{"sessions", OidcIssuer::sessionsSettingsTrusting({&issuer})}});
}

std::vector<std::string> suborgs(Client& client, const std::string& org, const std::string& type,
                                 const std::string& value, const std::string& op = "list_suborgs") {
  auto body = orgBody(org);
  body->set("filterType", type);
  body->set("filterValue", value);
  auto ids = client.query(op, body)->getArray("organizationIds");
  std::vector<std::string> out;
  for (size_t i = 0; i < ids->size(); ++i)
    out.push_back(ids->getElement<std::string>(static_cast<unsigned>(i)));
  return out;
}

TEST_P(TenancyTest, CreateSubOrganizationInEveryVersion) {
  OidcIssuer issuer;
  TestGateway gw = oidcGateway(GetParam(), issuer);
  auto root = gw.rootClient();
  for (int version = 4; version <= 8; ++version) {
    Key key = newKey();
    auto passkey = std::make_shared<SoftwareAuthenticator>();
    auto user = userParams("end user v" + std::to_string(version), {apiKeyParam(key.publicKey)},
                           "user" + std::to_string(version) + "@example.com");
    if (version >= 7) {
      json::Array authenticators = json::array();
      authenticators->add(passkey->registration("phone", base64UrlEncode(crypto::randomBytes(32))));
      user->set("authenticators", authenticators);
      json::Object provider = json::object();
      provider->set("providerName", "google");
      if (version == 8) {
        json::Object claims = json::object();
        claims->set("iss", "https://accounts.example.com");
        claims->set("sub", "subject-8");
        claims->set("aud", "app");
        provider->set("oidcClaims", claims);
      } else {
        provider->set("oidcToken", issuer.idToken("subject-7", "app", "registration"));
      }
      json::Array providers = json::array();
      providers->add(provider);
      user->set("oauthProviders", providers);
    }
    std::string v = std::to_string(version);
    auto activity =
        root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V" + v,
                    gw.root().organizationId, subOrgParams("sub v" + v, {user}));
    EXPECT_TRUE(activity->getObject("intent")->has("createSubOrganizationIntentV" + v));
    auto result = resultOf(activity, "createSubOrganizationResultV" + v);
    std::string subId = result->getValue<std::string>("subOrganizationId");
    ASSERT_EQ(result->getArray("rootUserIds")->size(), 1u);
    std::string userId = result->getArray("rootUserIds")->getElement<std::string>(0);

    auto sub = gw.clientWith(key.stamper);
    auto me = sub.query("whoami", orgBody(subId));
    EXPECT_EQ(me->getValue<std::string>("organizationId"), subId);
    EXPECT_EQ(me->getValue<std::string>("userId"), userId);
    auto body = orgBody(subId);
    body->set("userId", userId);
    auto u = sub.query("get_user", body)->getObject("user");
    EXPECT_EQ(u->getValue<std::string>("userEmail"), "user" + v + "@example.com");
    if (version >= 7) {
      EXPECT_EQ(u->getArray("authenticators")->size(), 1u);
      ASSERT_EQ(u->getArray("oauthProviders")->size(), 1u);
      EXPECT_EQ(u->getArray("oauthProviders")->getObject(0)->getValue<std::string>("subject"),
                "subject-" + v);
      // The passkey registered at creation stamps requests in its sub-organization.
      EXPECT_EQ(
          gw.clientWith(passkey).query("whoami", orgBody(subId))->getValue<std::string>("userId"),
          userId);
    }
    auto configs = sub.query("get_organization_configs", orgBody(subId))->getObject("configs");
    EXPECT_EQ(configs->getObject("quorum")->getValue<int>("threshold"), 1);
  }
}

// Text is stored and read back byte for byte, or refused: control characters in names and
// emails are refused naming the field and the character; other Unicode comes back as sent.
TEST_P(TenancyTest, ControlCharactersInNamesAndEmailsAreRefusedAndUnicodeIsKeptExactly) {
  TestGateway gw(GetParam());
  Client root = gw.rootClient();
  const std::string& org = gw.root().organizationId;
  auto createUser = [&](const json::Object& user) {
    json::Object p = json::object();
    json::Array users = json::array();
    users->add(user);
    p->set("users", users);
    return root.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, p);
  };
  struct Case {
    json::Object user;
    std::string field;
    std::string character;
  };
  for (const auto& c : std::vector<Case>{
           {userParams(std::string("tab\tname")), "parameters.users[0].userName", "U+0009"},
           {userParams(std::string("bell\x07")), "parameters.users[0].userName", "U+0007"},
           {userParams(std::string("del\x7f")), "parameters.users[0].userName", "U+007F"},
           {userParams("ok", {}, std::string("x\x01y@example.com")),
            "parameters.users[0].userEmail", "x"},
       }) {
    size_t usersBefore = static_cast<size_t>(gw.count("SELECT COUNT(*) FROM users"));
    try {
      createUser(c.user);
      ADD_FAILURE() << "accepted " << json::stringify(c.user);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.character), std::string::npos) << e.what();
    }
    EXPECT_EQ(static_cast<size_t>(gw.count("SELECT COUNT(*) FROM users")), usersBefore);
  }
  const std::string exact = "Zo\xc3\xab \xf0\x9f\x9a\x80 \xe5\xa4\xa7";  // Zoë, a rocket, 大
  auto a = createUser(userParams(exact, {}, std::string("zoe@example.com")));
  std::string id =
      resultOf(a, "createUsersResult")->getArray("userIds")->getElement<std::string>(0);
  auto body = orgBody(org);
  body->set("userId", id);
  EXPECT_EQ(root.query("get_user", body)->getObject("user")->getValue<std::string>("userName"),
            exact);
}

// A public key has one owner across a parent and its sub-organizations: a sibling, or the
// parent, cannot register a key a sub-organization holds, so a stamp resolves to one user.
TEST_P(TenancyTest, AnApiKeyHasOneOwnerAcrossAParentAndItsSubOrganizations) {
  TestGateway gw(GetParam());
  Client root = gw.rootClient();
  const std::string& org = gw.root().organizationId;
  Key shared = newKey();
  auto subOrg = [&](const std::string& name, const Key& key) {
    return root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7", org,
                       subOrgParams(name, {userParams("owner", {apiKeyParam(key.publicKey)})}));
  };
  auto first = subOrg("first", shared);
  EXPECT_EQ(first->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  auto sibling = subOrg("sibling", shared);
  EXPECT_NE(failureOf(sibling).find("a key has one owner across a parent and its "
                                    "sub-organizations"),
            std::string::npos)
      << json::stringify(sibling);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations WHERE name = 'sibling'"), 0);

  json::Object keys = json::object();
  keys->set("userId", gw.root().userId);
  json::Array list = json::array();
  list->add(apiKeyParam(shared.publicKey, "borrowed"));
  keys->set("apiKeys", list);
  auto parent = root.submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", org, keys);
  EXPECT_NE(failureOf(parent).find("is already registered in organization"), std::string::npos);

  // Another tree may hold the same key: it is another tenant's.
  auto [other, otherStamper] = gw.createOrganization("Other Org");
  auto elsewhere =
      gw.clientWith(otherStamper)
          .submit(
              "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
              other.organizationId,
              subOrgParams("elsewhere", {userParams("owner", {apiKeyParam(shared.publicKey)})}));
  EXPECT_EQ(elsewhere->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
      << json::stringify(elsewhere);
}

TEST_P(TenancyTest, PasskeysAndWhoamiResolveDownwardToTheRealSubOrganization) {
  TestGateway gw(GetParam());
  const std::string parent = gw.root().organizationId;
  Key key = newKey();
  auto passkey = std::make_shared<SoftwareAuthenticator>();
  auto user = userParams("end user", {apiKeyParam(key.publicKey)});
  json::Array authenticators = json::array();
  authenticators->add(passkey->registration("phone", base64UrlEncode(crypto::randomBytes(32))));
  user->set("authenticators", authenticators);
  auto subId = resultOf(gw.rootClient().submit("create_sub_organization",
                                               "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", parent,
                                               subOrgParams("downward", {user})),
                        "createSubOrganizationResultV8")
                   ->getValue<std::string>("subOrganizationId");
  // A passkey login that only knows the parent's id acts in the sub-organization.
  auto viaPasskey = gw.clientWith(passkey);
  EXPECT_EQ(viaPasskey.query("whoami", orgBody(parent))->getValue<std::string>("organizationId"),
            subId);
  json::Object tag = json::object();
  tag->set("userTagName", "via passkey");
  tag->set("userIds", json::array());
  auto a = viaPasskey.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", parent, tag);
  EXPECT_EQ(a->getValue<std::string>("organizationId"), subId);
  resultOf(a, "createUserTagResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM user_tags WHERE organization_id = ?", {subId}), 1);
  // API keys resolve downward for whoami only.
  auto viaKey = gw.clientWith(key.stamper);
  EXPECT_EQ(viaKey.query("whoami", orgBody(parent))->getValue<std::string>("organizationId"),
            subId);
  EXPECT_THROW(viaKey.query("list_users", orgBody(parent)), RequestError);
}

TEST_P(TenancyTest, SubOrganizationBadInputIsRefusedAndWritesNothing) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  int64_t orgsBefore = gw.count("SELECT COUNT(*) FROM organizations");
  struct Case {
    json::Object params;
    std::string expect;
  };
  auto twoOfOne = subOrgParams("x", {userParams("a", {apiKeyParam(newKey().publicKey)})}, 2);
  auto badEmail = subOrgParams("x", {userParams("a", {}, std::string("not-an-email"))});
  auto badPhone = subOrgParams("x", {userParams("a", {}, std::nullopt, std::string("555-0100"))});
  auto noUsers = subOrgParams("x", {});
  for (const auto& c : std::vector<Case>{{twoOfOne, "parameters.rootQuorumThreshold"},
                                         {badEmail, "parameters.rootUsers[0].userEmail"},
                                         {badPhone, "parameters.rootUsers[0].userPhoneNumber"},
                                         {noUsers, "parameters.rootUsers"}}) {
    try {
      root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
                  gw.root().organizationId, c.params);
      FAIL() << c.expect;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations"), orgsBefore);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users"), 1);

  // A wallet needs the plugin that makes wallets.
  auto withWallet = subOrgParams("w", {userParams("a")});
  json::Object wallet = json::object();
  wallet->set("walletName", "main");
  wallet->set("accounts", json::array());
  withWallet->set("wallet", wallet);
  auto a = root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
                       gw.root().organizationId, withWallet);
  EXPECT_NE(failureOf(a).find("'signing' plugin"), std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations"), orgsBefore);
}

// Users, passkeys and providers nested in an intent have shapes of their own: a wrong type or a
// missing field is a 400 naming its full path, before any policy runs, and nothing is stored.
// The submitter is a member no policy allows: a check left to the handler would never run, and
// the policy's denial would be recorded instead.
TEST_P(TenancyTest, NestedParametersAreRefusedNamingTheirPath) {
  TestGateway gw(GetParam());
  Org o(gw);
  const std::string org = o.org();
  const std::string member = o.user("member");
  auto as = o.as(member);
  const int64_t activitiesBefore = gw.count("SELECT COUNT(*) FROM activities");
  const int64_t usersBefore = gw.count("SELECT COUNT(*) FROM users");
  auto refusal = [&](const std::string& path, const std::string& type, const json::Object& p) {
    try {
      auto a = as.submit(path, type, org, p);
      return "answered " + json::stringify(a);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400) << e.what();
      return std::string(e.what());
    }
  };
  auto list = [](const json::Object& item) {
    json::Array a = json::array();
    a->add(item);
    return a;
  };
  auto key = apiKeyParam(newKey().publicKey);
  key->set("expirationSeconds", true);
  auto keyed = userParams("keyed", {key});
  auto unnamed = userParams("x");
  unnamed->set("userName", 7);
  json::Object claims = json::object();
  claims->set("iss", "https://issuer.example");
  claims->set("sub", "s");
  json::Object provider = json::object();
  provider->set("providerName", "google");
  provider->set("oidcClaims", claims);
  auto claimed = userParams("claimed");
  claimed->set("oauthProviders", list(provider));
  json::Object attestation = json::object();
  attestation->set("credentialId", 1);
  json::Object passkey = json::object();
  passkey->set("authenticatorName", "laptop");
  passkey->set("challenge", "Y2hhbGxlbmdl");
  passkey->set("attestation", attestation);
  auto withPasskey = userParams("passkey");
  withPasskey->set("authenticators", list(passkey));
  auto tagged = userParams("tagged");
  tagged->set("userTags", "not a list");

  // A sub-organization's wallet is the SDK's WalletParameters: checked here like any field,
  // though the wallet provider (the signing plugin, not loaded in this gateway) creates it.
  auto withWallet = [&](const json::Object& wallet) {
    auto p = subOrgParams("x", {userParams("a")});
    p->set("wallet", wallet);
    return p;
  };
  json::Object account = json::object();
  account->set("curve", 1);
  account->set("pathFormat", "PATH_FORMAT_BIP32");
  account->set("path", "m/44'/60'/0'/0/0");
  account->set("addressFormat", "ADDRESS_FORMAT_ETHEREUM");
  json::Object badAccount = json::object();
  badAccount->set("walletName", "w");
  badAccount->set("accounts", list(account));
  json::Object unnamedWallet = json::object();
  unnamedWallet->set("accounts", json::array());

  const std::string v8 = "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8";
  struct Case {
    std::string refused, expect;
  };
  auto users = [&](const json::Object& u) {
    json::Object p = json::object();
    p->set("users", list(u));
    return refusal("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", p);
  };
  for (const auto& c : std::vector<Case>{
           {refusal("create_sub_organization", v8, subOrgParams("x", {userParams("a"), keyed})),
            "invalid field parameters.rootUsers[1].apiKeys[0].expirationSeconds: expected"},
           {refusal("create_sub_organization", v8, subOrgParams("x", {unnamed})),
            "invalid field parameters.rootUsers[0].userName: expected"},
           {refusal("create_sub_organization", v8, subOrgParams("x", {claimed})),
            "missing required field parameters.rootUsers[0].oauthProviders[0].oidcClaims.aud"},
           {users(withPasskey),
            "invalid field parameters.users[0].authenticators[0].attestation.credentialId: "
            "expected"},
           {users(tagged), "invalid field parameters.users[0].userTags: expected"},
           {users(keyed),
            "invalid field parameters.users[0].apiKeys[0].expirationSeconds: expected"},
           // RootUserParams has no userTags: a root user's are not read, so not checked.
           {refusal("create_sub_organization", v8, subOrgParams("x", {tagged, unnamed})),
            "invalid field parameters.rootUsers[1].userName: expected"},
           {refusal("create_sub_organization", v8, withWallet(badAccount)),
            "invalid field parameters.wallet.accounts[0].curve: expected a string, got a number"},
           {refusal("create_sub_organization", v8, withWallet(unnamedWallet)),
            "missing required field parameters.wallet.walletName"}})
    EXPECT_NE(c.refused.find(c.expect), std::string::npos) << c.expect << ": " << c.refused;

  json::Object passkeys = json::object();
  passkeys->set("userId", member);
  passkeys->set("authenticators", list(passkey));
  EXPECT_NE(
      refusal("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", passkeys)
          .find("invalid field parameters.authenticators[0].attestation.credentialId: expected"),
      std::string::npos);
  json::Object providers = json::object();
  providers->set("userId", member);
  providers->set("oauthProviders", list(provider));
  EXPECT_NE(refusal("create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", providers)
                .find("missing required field parameters.oauthProviders[0].oidcClaims.aud"),
            std::string::npos);

  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations"), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users"), usersBefore);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM authenticators"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM oauth_providers"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activitiesBefore)
      << "refused before it is recorded";
  // The premise: the same intent, well formed, reaches the policies, which deny this member.
  json::Object wellFormed = json::object();
  wellFormed->set("users", list(userParams("fine")));
  auto denied = as.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, wellFormed);
  EXPECT_NE(status(denied), kCompleted) << json::stringify(denied);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activitiesBefore + 1);
}

TEST_P(TenancyTest, OidcTokensAreRefusedWithoutAPluginThatVerifiesThem) {
  OidcIssuer issuer;
  TestGateway gw(GetParam());  // memo only
  auto user = userParams("no verifier", {});
  json::Object provider = json::object();
  provider->set("providerName", "google");
  provider->set("oidcToken", issuer.idToken("s", "app", "n"));
  json::Array providers = json::array();
  providers->add(provider);
  user->set("oauthProviders", providers);
  int64_t before = gw.count("SELECT COUNT(*) FROM organizations");
  try {
    gw.rootClient().submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                           gw.root().organizationId, subOrgParams("unverified", {user}));
    ADD_FAILURE() << "an unverifiable OIDC token was accepted";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("'sessions' plugin"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rootUsers[0].oauthProviders[0].oidcToken"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations"), before);
  auto body = orgBody(gw.root().organizationId);
  body->set("filterType", "OIDC_TOKEN");
  body->set("filterValue", issuer.idToken("s", "app", "n"));
  EXPECT_THROW(gw.rootClient().query("list_suborgs", body), RequestError);
}

TEST_P(TenancyTest, ListSubOrganizationsByEveryFilterWithPagination) {
  OidcIssuer issuer;
  TestGateway gw = oidcGateway(GetParam(), issuer);
  auto root = gw.rootClient();
  std::vector<std::string> ids;
  std::vector<Key> keys;
  std::vector<std::shared_ptr<SoftwareAuthenticator>> passkeys;
  for (int i = 0; i < 3; ++i) {
    gw.gateway().setClock([i] { return systemNowMs() + i * 10; });  // distinct creation times
    keys.push_back(newKey());
    passkeys.push_back(std::make_shared<SoftwareAuthenticator>());
    std::string n = std::to_string(i);
    auto user = userParams("user" + n, {apiKeyParam(keys.back().publicKey)},
                           "User" + n + "@Example.com", "+1415555010" + n);
    json::Array authenticators = json::array();
    authenticators->add(
        passkeys.back()->registration("pk", base64UrlEncode(crypto::randomBytes(32))));
    user->set("authenticators", authenticators);
    json::Object provider = json::object();
    provider->set("providerName", "idp");
    provider->set("oidcToken", issuer.idToken("sub" + n, "app", "registration"));
    json::Array providers = json::array();
    providers->add(provider);
    user->set("oauthProviders", providers);
    ids.push_back(
        resultOf(root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                             gw.root().organizationId, subOrgParams("org " + n, {user})),
                 "createSubOrganizationResultV7")
            ->getValue<std::string>("subOrganizationId"));
  }
  gw.gateway().setClock(systemNowMs);
  const std::string org = gw.root().organizationId;
  using V = std::vector<std::string>;
  EXPECT_EQ(suborgs(root, org, "NAME", "org 1"), V{ids[1]});
  EXPECT_EQ(suborgs(root, org, "USERNAME", "user2"), V{ids[2]});
  EXPECT_EQ(suborgs(root, org, "EMAIL", "user0@example.com"), V{ids[0]});
  EXPECT_EQ(suborgs(root, org, "PHONE_NUMBER", "+14155550101"), V{ids[1]});
  EXPECT_EQ(suborgs(root, org, "CREDENTIAL_ID", passkeys[2]->credentialId()), V{ids[2]});
  EXPECT_EQ(suborgs(root, org, "PUBLIC_KEY", keys[0].publicKey), V{ids[0]});
  EXPECT_EQ(suborgs(root, org, "OIDC_TOKEN", issuer.idToken("sub1", "app", "lookup")), V{ids[1]});
  EXPECT_TRUE(suborgs(root, org, "EMAIL", "nobody@example.com").empty());

  auto all = orgBody(org);
  auto page = json::object();
  page->set("limit", "2");
  all->set("paginationOptions", page);
  auto first = root.query("list_suborgs", all)->getArray("organizationIds");
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ(first->getElement<std::string>(0), ids[0]);
  page->set("after", ids[1]);
  EXPECT_EQ(
      root.query("list_suborgs", all)->getArray("organizationIds")->getElement<std::string>(0),
      ids[2]);

  try {
    suborgs(root, org, "WALLET_ACCOUNT_ADDRESS", "0xabc");
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 501);
    EXPECT_NE(std::string(e.what()).find("'signing' plugin"), std::string::npos);
  }
  try {
    suborgs(root, org, "SHOE_SIZE", "42");
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("filterType"), std::string::npos);
  }
  // A sub-organization sees none of its siblings through list_suborgs.
  EXPECT_TRUE(
      suborgs(*std::make_unique<Client>(gw.clientWith(keys[0].stamper)), ids[0], "NAME", "org 1")
          .empty());
}

TEST_P(TenancyTest, VerificationTokensMarkContactsVerifiedOnce) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  std::string token = gw.mintVerificationToken("OTP_TYPE_EMAIL", "verified@example.com", org);
  auto params =
      subOrgParams("verified", {userParams("v", {}, std::string("verified@example.com"))});
  params->set("verificationToken", token);
  auto verified = resultOf(root.submit("create_sub_organization",
                                       "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", org, params),
                           "createSubOrganizationResultV8")
                      ->getValue<std::string>("subOrganizationId");
  resultOf(root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", org,
                       subOrgParams("unverified",
                                    {userParams("u", {}, std::string("unverified@example.com"))})),
           "createSubOrganizationResultV8");
  EXPECT_EQ(suborgs(root, org, "EMAIL", "verified@example.com", "list_verified_suborgs"),
            std::vector<std::string>{verified});
  EXPECT_TRUE(
      suborgs(root, org, "EMAIL", "unverified@example.com", "list_verified_suborgs").empty());
  EXPECT_EQ(suborgs(root, org, "EMAIL", "unverified@example.com").size(), 1u);

  // A token is spent once; an expired or foreign one is refused.
  auto again = subOrgParams("again", {userParams("v2", {}, std::string("verified@example.com"))});
  again->set("verificationToken", token);
  for (auto [params2, expect] :
       std::vector<std::pair<json::Object, std::string>>{{again, "already been used"}}) {
    try {
      root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", org,
                  params2);
      FAIL();
    } catch (const RequestError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  auto expired = subOrgParams("late", {userParams("l", {}, std::string("late@example.com"))});
  expired->set("verificationToken", gw.mintVerificationToken("OTP_TYPE_EMAIL", "late@example.com",
                                                             org, systemNowMs() - 1000));
  EXPECT_THROW(root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
                           org, expired),
               RequestError);
  auto forged = subOrgParams("forged", {userParams("f", {}, std::string("f@example.com"))});
  // A JWT of the right shape that no one signed.
  forged->set("verificationToken",
              base64UrlEncode(std::string(R"({"alg":"ES256","typ":"JWT"})")) + "." +
                  base64UrlEncode(std::string(R"({"id":"x","contact":"f@example.com"})")) + "." +
                  base64UrlEncode(std::string(64, 's')));
  EXPECT_THROW(root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
                           org, forged),
               RequestError);
}

TEST_P(TenancyTest, DeleteSubOrganization) {
  TestGateway gw(GetParam());
  Key key = newKey();
  auto subId =
      resultOf(gw.rootClient().submit(
                   "create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
                   gw.root().organizationId,
                   subOrgParams("doomed", {userParams("d", {apiKeyParam(key.publicKey)})})),
               "createSubOrganizationResultV8")
          ->getValue<std::string>("subOrganizationId");
  // The parent's root cannot delete it on the sub-organization's behalf.
  json::Object params = json::object();
  EXPECT_NE(
      failureOf(gw.rootClient().submit("delete_sub_organization",
                                       "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", subId, params))
          .find("cannot run ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION"),
      std::string::npos);
  auto sub = gw.clientWith(key.stamper);
  auto deleted = resultOf(
      sub.submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", subId, params),
      "deleteSubOrganizationResult");
  EXPECT_EQ(deleted->getValue<std::string>("subOrganizationUuid"), subId);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations WHERE id = ?", {subId}), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM users WHERE organization_id = ?", {subId}), 0);
  // Its history goes with it (the parent's refused attempt included); what stays is the
  // deletion's own activity and evaluation, kept for audit.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE organization_id = ?", {subId}), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE organization_id = ? AND evaluations "
                     "LIKE '[{%'",
                     {subId}),
            1);
  EXPECT_THROW(sub.query("whoami", orgBody(subId)), RequestError);
  // A root organization is not a sub-organization.
  EXPECT_NE(failureOf(gw.rootClient().submit("delete_sub_organization",
                                             "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
                                             gw.root().organizationId, params))
                .find("not a sub-organization"),
            std::string::npos);
}

TEST_P(TenancyTest, UsersAndTags) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  json::Object tagParams = json::object();
  tagParams->set("userTagName", "admins");
  tagParams->set("userIds", json::stringArray({gw.root().userId}));
  std::string tagId =
      resultOf(root.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, tagParams),
               "createUserTagResult")
          ->getValue<std::string>("userTagId");
  EXPECT_NE(
      failureOf(root.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, tagParams))
          .find("already exists"),
      std::string::npos);

  Key key = newKey();
  auto alice = userParams("alice", {apiKeyParam(key.publicKey)}, std::string("alice@example.com"));
  alice->set("userTags", json::stringArray({tagId}));
  auto bob = userParams("bob");
  bob->set("userTags", json::array());
  json::Array list = json::array();
  list->add(alice);
  list->add(bob);
  json::Object createParams = json::object();
  createParams->set("users", list);
  auto userIds =
      resultOf(root.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, createParams),
               "createUsersResult")
          ->getArray("userIds");
  ASSERT_EQ(userIds->size(), 2u);
  std::string aliceId = userIds->getElement<std::string>(0),
              bobId = userIds->getElement<std::string>(1);
  EXPECT_EQ(root.query("list_users", orgBody(org))->getArray("users")->size(), 3u);

  // update_user: name, phone and tags; update_user_email with a verification token.
  json::Object update = json::object();
  update->set("userId", bobId);
  update->set("userName", "robert");
  update->set("userPhoneNumber", "+447700900123");
  update->set("userTagIds", json::stringArray({tagId}));
  resultOf(root.submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", org, update),
           "updateUserResult");
  json::Object email = json::object();
  email->set("userId", bobId);
  email->set("userEmail", "bob@example.com");
  email->set("verificationToken",
             gw.mintVerificationToken("OTP_TYPE_EMAIL", "bob@example.com", org));
  resultOf(root.submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", org, email),
           "updateUserEmailResult");
  EXPECT_EQ(gw.count("SELECT email_verified FROM users WHERE id = ?", {bobId}), 1);
  auto get = orgBody(org);
  get->set("userId", bobId);
  auto bobNow = root.query("get_user", get)->getObject("user");
  EXPECT_EQ(bobNow->getValue<std::string>("userName"), "robert");
  EXPECT_EQ(bobNow->getValue<std::string>("userPhoneNumber"), "+447700900123");
  EXPECT_EQ(bobNow->getArray("userTags")->getElement<std::string>(0), tagId);
  json::Object phone = json::object();
  phone->set("userId", bobId);
  phone->set("userPhoneNumber", "07700 900123");
  EXPECT_THROW(
      root.submit("update_user_phone_number", "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER", org, phone),
      RequestError);
  json::Object name = json::object();
  name->set("userId", aliceId);
  name->set("userName", "alice l.");
  resultOf(root.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", org, name),
           "updateUserNameResult");

  // Tags: rename, move members, list, delete.
  json::Object tagUpdate = json::object();
  tagUpdate->set("userTagId", tagId);
  tagUpdate->set("newUserTagName", "operators");
  tagUpdate->set("addUserIds", json::array());
  tagUpdate->set("removeUserIds", json::stringArray({gw.root().userId}));
  resultOf(root.submit("update_user_tag", "ACTIVITY_TYPE_UPDATE_USER_TAG", org, tagUpdate),
           "updateUserTagResult");
  auto tags = root.query("list_user_tags", orgBody(org))->getArray("userTags");
  ASSERT_EQ(tags->size(), 1u);
  EXPECT_EQ(tags->getObject(0)->getValue<std::string>("tagName"), "operators");
  EXPECT_EQ(tags->getObject(0)->getValue<std::string>("tagType"), "TAG_TYPE_USER");
  json::Object tagDelete = json::object();
  tagDelete->set("userTagIds", json::stringArray({tagId}));
  auto removed =
      resultOf(root.submit("delete_user_tags", "ACTIVITY_TYPE_DELETE_USER_TAGS", org, tagDelete),
               "deleteUserTagsResult");
  EXPECT_EQ(removed->getArray("userIds")->size(), 2u);  // alice and bob carried it

  // delete_users: not a root-quorum member; a deleted user's key stops working.
  json::Object delRoot = json::object();
  delRoot->set("userIds", json::stringArray({gw.root().userId}));
  EXPECT_NE(failureOf(root.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", org, delRoot))
                .find("root quorum"),
            std::string::npos);
  EXPECT_NO_THROW(gw.clientWith(key.stamper).query("whoami", orgBody(org)));
  json::Object delAlice = json::object();
  delAlice->set("userIds", json::stringArray({aliceId}));
  resultOf(root.submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", org, delAlice),
           "deleteUsersResult");
  EXPECT_THROW(gw.clientWith(key.stamper).query("whoami", orgBody(org)), RequestError);
}

TEST_P(TenancyTest, PasskeysRegisteredThroughTheApi) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  for (auto alg :
       {SoftwareAuthenticator::Algorithm::kEs256, SoftwareAuthenticator::Algorithm::kRs256}) {
    auto passkey = std::make_shared<SoftwareAuthenticator>(alg);
    json::Array list = json::array();
    list->add(passkey->registration("laptop", base64UrlEncode(crypto::randomBytes(32))));
    json::Object params = json::object();
    params->set("userId", gw.root().userId);
    params->set("authenticators", list);
    std::string id = resultOf(root.submit("create_authenticators",
                                          "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", org, params),
                              "createAuthenticatorsResult")
                         ->getArray("authenticatorIds")
                         ->getElement<std::string>(0);
    auto client = gw.clientWith(passkey);
    EXPECT_EQ(client.query("whoami", orgBody(org))->getValue<std::string>("userId"),
              gw.root().userId);
    auto q = orgBody(org);
    q->set("authenticatorId", id);
    auto a = root.query("get_authenticator", q)->getObject("authenticator");
    EXPECT_EQ(a->getValue<std::string>("credentialId"), passkey->credentialId());
    EXPECT_EQ(a->getValue<std::string>("attestationType"), "none");
    json::Object del = json::object();
    del->set("userId", gw.root().userId);
    del->set("authenticatorIds", json::stringArray({id}));
    resultOf(root.submit("delete_authenticators", "ACTIVITY_TYPE_DELETE_AUTHENTICATORS", org, del),
             "deleteAuthenticatorsResult");
    EXPECT_THROW(client.query("whoami", orgBody(org)), RequestError);
  }
  auto q = orgBody(org);
  q->set("userId", gw.root().userId);
  EXPECT_EQ(root.query("get_authenticators", q)->getArray("authenticators")->size(), 0u);

  // A registration for another challenge, or whose credential id is not the attested one.
  SoftwareAuthenticator passkey;
  auto wrongChallenge = passkey.registration("x", "Y2hhbGxlbmdl");
  wrongChallenge->set("challenge", "b3RoZXI");
  auto wrongId = passkey.registration("x", "Y2hhbGxlbmdl");
  wrongId->getObject("attestation")->set("credentialId", base64UrlEncode(crypto::randomBytes(16)));
  for (auto [bad, expect] : std::vector<std::pair<json::Object, std::string>>{
           {wrongChallenge, ".challenge"}, {wrongId, ".credentialId"}}) {
    json::Array list = json::array();
    list->add(bad);
    json::Object params = json::object();
    params->set("userId", gw.root().userId);
    params->set("authenticators", list);
    try {
      root.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", org, params);
      FAIL() << expect;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM authenticators"), 0);
}

TEST_P(TenancyTest, QuorumFeaturesAndName) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  json::Array list = json::array();
  list->add(userParams("second"));
  json::Object create = json::object();
  create->set("users", list);
  std::string second =
      resultOf(root.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, create),
               "createUsersResult")
          ->getArray("userIds")
          ->getElement<std::string>(0);
  const std::vector<std::string> names = {"FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY",
                                          "FEATURE_NAME_WEBAUTHN_ORIGINS",
                                          "FEATURE_NAME_EMAIL_AUTH",
                                          "FEATURE_NAME_EMAIL_RECOVERY",
                                          "FEATURE_NAME_WEBHOOK",
                                          "FEATURE_NAME_SMS_AUTH",
                                          "FEATURE_NAME_OTP_EMAIL_AUTH",
                                          "FEATURE_NAME_AUTH_PROXY",
                                          "FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED",
                                          "FEATURE_NAME_SWAP_CONFIG",
                                          "FEATURE_NAME_EARN_CONFIG"};
  for (const auto& name : names) {
    json::Object f = json::object();
    f->set("name", name);
    f->set("value", name == "FEATURE_NAME_WEBHOOK" ? "https://hooks.example/signet" : "true");
    resultOf(
        root.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", org, f),
        "setOrganizationFeatureResult");
  }
  json::Object removal = json::object();
  removal->set("name", "FEATURE_NAME_SMS_AUTH");
  auto remaining = resultOf(root.submit("remove_organization_feature",
                                        "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", org, removal),
                            "removeOrganizationFeatureResult")
                       ->getArray("features");
  EXPECT_EQ(remaining->size(), names.size() - 1);
  EXPECT_NE(failureOf(root.submit("remove_organization_feature",
                                  "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", org, removal))
                .find("is not set"),
            std::string::npos);
  json::Object bogus = json::object();
  bogus->set("name", "FEATURE_NAME_TELEPORT");
  bogus->set("value", "1");
  EXPECT_THROW(
      root.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", org, bogus),
      RequestError);
  EXPECT_EQ(root.query("get_organization_configs", orgBody(org))
                ->getObject("configs")
                ->getArray("features")
                ->size(),
            names.size() - 1);

  json::Object rename = json::object();
  rename->set("organizationName", "Renamed Org");
  EXPECT_EQ(resultOf(root.submit("update_organization_name",
                                 "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", org, rename),
                     "updateOrganizationNameResult")
                ->getValue<std::string>("organizationName"),
            "Renamed Org");
  EXPECT_EQ(root.query("whoami", orgBody(org))->getValue<std::string>("organizationName"),
            "Renamed Org");

  json::Object quorum = json::object();
  quorum->set("threshold", 3);
  quorum->set("userIds", json::stringArray({gw.root().userId, second}));
  EXPECT_THROW(root.submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", org, quorum),
               RequestError);
  quorum->set("threshold", 2);
  resultOf(root.submit("update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", org, quorum),
           "updateRootQuorumResult");
  auto configs = root.query("get_organization_configs", orgBody(org))->getObject("configs");
  EXPECT_EQ(configs->getObject("quorum")->getValue<int>("threshold"), 2);
  EXPECT_EQ(configs->getObject("quorum")->getArray("userIds")->size(), 2u);

  // Root-quorum-only types now need both root users: one alone waits for the other.
  json::Object again = json::object();
  again->set("name", "FEATURE_NAME_SMS_AUTH");
  again->set("value", "true");
  EXPECT_EQ(
      root.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", org, again)
          ->getValue<std::string>("status"),
      "ACTIVITY_STATUS_CONSENSUS_NEEDED");
}

TEST_P(TenancyTest, PluginHooksEventsWalletsAndDeletionGuards) {
  TestGateway gw(GetParam(), {"recorder"}, SIGNET_TEST_PLUGIN_DIR);
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  json::Object f = json::object();
  f->set("name", "FEATURE_NAME_WEBHOOK");
  f->set("value", "https://hooks.example/x");
  resultOf(
      root.submit("set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", org, f),
      "setOrganizationFeatureResult");
  auto events = root.query("recorder_events", orgBody(org))->getArray("events");
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ(events->getObject(0)->getValue<std::string>("event"), "organization.feature_set");
  EXPECT_EQ(events->getObject(0)->getObject("payload")->getValue<std::string>("value"),
            "https://hooks.example/x");

  Key key = newKey();
  auto params = subOrgParams("with wallet", {userParams("w", {apiKeyParam(key.publicKey)})});
  json::Object wallet = json::object();
  wallet->set("walletName", "main");
  wallet->set("accounts", json::array());
  params->set("wallet", wallet);
  auto result = resultOf(root.submit("create_sub_organization",
                                     "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", org, params),
                         "createSubOrganizationResultV8");
  std::string subId = result->getValue<std::string>("subOrganizationId");
  EXPECT_TRUE(json::isUuid(result->getObject("wallet")->getValue<std::string>("walletId")));

  auto sub = gw.clientWith(key.stamper);
  json::Object keep = json::object();
  EXPECT_NE(failureOf(sub.submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION",
                                 subId, keep))
                .find("never exported"),
            std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations WHERE id = ?", {subId}), 1);
  json::Object force = json::object();
  force->set("deleteWithoutExport", true);
  resultOf(
      sub.submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", subId, force),
      "deleteSubOrganizationResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM recorder_wallets WHERE organization_id = ?", {subId}),
            0);
}

TEST_P(TenancyTest, Limits) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  json::Array list = json::array();
  for (int i = 0; i < 99; ++i) list->add(userParams("user " + std::to_string(i)));
  json::Object create = json::object();
  create->set("users", list);
  resultOf(root.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, create),
           "createUsersResult");
  json::Array one = json::array();
  one->add(userParams("one too many"));
  create->set("users", one);
  EXPECT_NE(failureOf(root.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org, create))
                .find("100 users"),
            std::string::npos);

  // Ten tags in a sub-organization.
  Key key = newKey();
  auto subId =
      resultOf(
          root.submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", org,
                      subOrgParams("small", {userParams("s", {apiKeyParam(key.publicKey)})})),
          "createSubOrganizationResultV8")
          ->getValue<std::string>("subOrganizationId");
  auto sub = gw.clientWith(key.stamper);
  for (int i = 0; i <= 10; ++i) {
    json::Object tag = json::object();
    tag->set("userTagName", "tag " + std::to_string(i));
    tag->set("userIds", json::array());
    auto a = sub.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", subId, tag);
    if (i < 10)
      resultOf(a, "createUserTagResult");
    else
      EXPECT_NE(failureOf(a).find("limit for a sub-organization is 10"), std::string::npos);
  }

  // Ten passkeys per user.
  json::Array passkeys = json::array();
  for (int i = 0; i <= 10; ++i)
    passkeys->add(SoftwareAuthenticator().registration("pk " + std::to_string(i), "Y2hhbGxlbmdl"));
  json::Object params = json::object();
  params->set("userId", gw.root().userId);
  params->set("authenticators", passkeys);
  EXPECT_NE(failureOf(root.submit("create_authenticators", "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
                                  org, params))
                .find("10 authenticators"),
            std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM authenticators"), 0);
}

}  // namespace
}  // namespace signet::test
