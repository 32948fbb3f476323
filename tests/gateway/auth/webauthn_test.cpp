// X-Stamp-WebAuthn with a software authenticator, its passkey registered through the API
// (create_authenticators, a "none" attestation as a browser sends it) and checked as stored.
#include "auth/webauthn.hpp"
#include "support/signing_fixtures.hpp"
#include "support/software_authenticator.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class WebAuthnTest : public BackendTest {};
SIGNET_BACKEND_SUITE(WebAuthnTest);

// Registers the authenticator's passkey for the root user with create_authenticators, and
// checks that what was stored is that credential: its id, algorithm, public key and counter.
void registerPasskey(TestGateway& gw, const SoftwareAuthenticator& passkey) {
  json::Array list = json::array();
  list->add(passkey.registration("passkey", base64UrlEncode(crypto::randomBytes(32))));
  json::Object p = json::object();
  p->set("userId", gw.root().userId);
  p->set("authenticators", list);
  auto ids = resultOf(gw.rootClient().submit("create_authenticators",
                                             "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
                                             gw.root().organizationId, p),
                      "createAuthenticatorsResult")
                 ->getArray("authenticatorIds");
  ASSERT_EQ(ids->size(), 1u);
  auto expected = passkey.record(gw.root().organizationId, gw.root().userId);
  gw.write([&](Db& db) {
    auto row = db.queryOne(
        "SELECT organization_id, user_id, credential_id, algorithm, public_key, sign_count FROM "
        "authenticators WHERE id = ?",
        {ids->getElement<std::string>(0)});
    ASSERT_TRUE(row);
    EXPECT_EQ(row->str("organization_id"), gw.root().organizationId);
    EXPECT_EQ(row->str("user_id"), gw.root().userId);
    EXPECT_EQ(row->str("credential_id"), passkey.credentialId());
    EXPECT_EQ(row->i64("algorithm"), expected.algorithm);
    EXPECT_EQ(row->str("public_key"), expected.publicKey);
    EXPECT_EQ(row->i64("sign_count"), 0);
  });
}

TEST_P(WebAuthnTest, Es256AndRs256AssertionsAuthenticate) {
  TestGateway gw(GetParam());
  for (auto alg :
       {SoftwareAuthenticator::Algorithm::kEs256, SoftwareAuthenticator::Algorithm::kRs256}) {
    auto authenticator = std::make_shared<SoftwareAuthenticator>(alg);
    registerPasskey(gw, *authenticator);
    auto client = gw.clientWith(authenticator);
    auto me = client.query("whoami", orgBody(gw.root().organizationId));
    EXPECT_EQ(me->getValue<std::string>("userId"), gw.root().userId);
    // The counter must advance: replaying a counter value is refused.
    authenticator->counter = 5;
    EXPECT_NO_THROW(client.query("whoami", orgBody(gw.root().organizationId)));
    authenticator->counter = 5;
    try {
      client.query("whoami", orgBody(gw.root().organizationId));
      FAIL() << "a repeated counter was accepted";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 401);
      EXPECT_NE(std::string(e.what()).find("counter"), std::string::npos) << e.what();
    }
  }
}

TEST_P(WebAuthnTest, ActivityVoteCarriesThePasskey) {
  TestGateway gw(GetParam());
  auto authenticator = std::make_shared<SoftwareAuthenticator>();
  registerPasskey(gw, *authenticator);
  json::Object params = json::object();
  params->set("text", "signed with a passkey");
  auto a = gw.clientWith(authenticator)
               .submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                       gw.root().organizationId, params);
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  auto vote = a->getArray("votes")->getObject(0);
  EXPECT_EQ(vote->getValue<std::string>("scheme"), "SIGNATURE_SCHEME_TK_WEBAUTHN");
}

// A passkey's assertion advances its stored counter, which is a write: a read-only activity
// (a signature) stamped with a passkey is authenticated where that write can be made, not on
// the read-only snapshot its decision runs on.
TEST_P(WebAuthnTest, APasskeySignsAndItsCounterAdvances) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string& org = gw.root().organizationId;
  auto authenticator = std::make_shared<SoftwareAuthenticator>();
  registerPasskey(gw, *authenticator);
  std::string address = newEthereumAddress(gw.rootClient(), org, "passkey");
  authenticator->counter = 7;
  for (const char* payload : {"first", "second"}) {
    auto a = gw.clientWith(authenticator)
                 .submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                         signParams(address, payload, "PAYLOAD_ENCODING_TEXT_UTF8",
                                    "HASH_FUNCTION_KECCAK256"));
    EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED") << payload;
  }
  EXPECT_EQ(gw.count("SELECT MAX(sign_count) FROM authenticators"), 8);
}

TEST_P(WebAuthnTest, RefusesWrongChallengeAndUnknownCredential) {
  TestGateway gw(GetParam());
  auto authenticator = std::make_shared<SoftwareAuthenticator>();
  registerPasskey(gw, *authenticator);
  auto client = gw.clientWith(authenticator);
  authenticator->challengeBodyOverride = "{\"organizationId\":\"someone else\"}";
  try {
    client.query("whoami", orgBody(gw.root().organizationId));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
    EXPECT_NE(std::string(e.what()).find("challenge"), std::string::npos) << e.what();
  }
  auto unknown = std::make_shared<SoftwareAuthenticator>();
  try {
    gw.clientWith(unknown).query("whoami", orgBody(gw.root().organizationId));
    FAIL();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 401);
    EXPECT_NE(std::string(e.what()).find(gw.root().organizationId), std::string::npos);
  }
}

TEST(WebAuthnAssertion, RelyingPartyIdsAreCheckedWhenConfigured) {
  SoftwareAuthenticator authenticator(SoftwareAuthenticator::Algorithm::kEs256, "wallet.example");
  auto record = authenticator.record(crypto::uuidV4(), crypto::uuidV4());
  std::string body = "{}";
  auto stamp = parseWebAuthnStamp(authenticator.stamp(body).second);
  EXPECT_EQ(verifyAssertion(stamp, record, body, {"wallet.example"}), 1);
  EXPECT_EQ(verifyAssertion(stamp, record, body, {}), 1);
  EXPECT_THROW(verifyAssertion(stamp, record, body, {"other.example"}), Error);
  // A different body: the challenge no longer matches.
  EXPECT_THROW(verifyAssertion(stamp, record, "{\"x\":1}", {}), Error);
}

}  // namespace
}  // namespace signet::test
