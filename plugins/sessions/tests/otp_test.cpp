// OTP through a real gateway with the sessions plugin: codes delivered by a real SMTP server
// on loopback (STARTTLS and AUTH), by an HTTP SMS provider on loopback, or to the outbox;
// init_otp -> verify_otp -> otp_login -> whoami with the session key; the V3 encrypted code;
// tries, rate limits, delivery failures, feature flags; the legacy otp_auth and email_auth.
#include <cstdlib>

#include <thread>

#include "signet/bundles.hpp"
#include "support/auth_fixtures.hpp"
#include "support/http_recorder.hpp"
#include "support/smtp_sink.hpp"
#include "support/tcp_peer.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class OtpTest : public BackendTest {};
SIGNET_BACKEND_SUITE(OtpTest);

const std::string kEmail = "alice@example.com";
const std::string kPhone = "+14155550123";

json::Object initOtpParams(const std::string& type, const std::string& contact) {
  json::Object p = json::object();
  p->set("otpType", type);
  p->set("contact", contact);
  p->set("appName", "Demo App");
  return p;
}

std::string requestErrorOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const RequestError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the request succeeded";
  return "";
}

std::map<std::string, json::Object> sessionsSettings(const std::string& jsonText) {
  return {{"sessions", json::parseObject(jsonText, "test settings")}};
}

// init_otp (V2) at the root organization; returns the otpId.
std::string initOtp(TestGateway& gw, const std::string& type, const std::string& contact,
                    json::Object extra = json::object()) {
  auto p = initOtpParams(type, contact);
  for (const auto& n : extra->getNames()) p->set(n, extra->get(n));
  return resultOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                         gw.root().organizationId, p),
                  "initOtpResult")
      ->getValue<std::string>("otpId");
}

json::Object verifyParams(const std::string& otpId, const std::string& code,
                          const std::string& publicKey) {
  json::Object p = json::object();
  p->set("otpId", otpId);
  p->set("otpCode", code);
  if (!publicKey.empty()) p->set("publicKey", publicKey);
  return p;
}

std::string verifyOtp(TestGateway& gw, const std::string& otpId, const std::string& code,
                      const std::string& publicKey) {
  return resultOf(
             gw.rootClient().submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP",
                                    gw.root().organizationId, verifyParams(otpId, code, publicKey)),
             "verifyOtpResult")
      ->getValue<std::string>("verificationToken");
}

TEST_P(OtpTest, EmailThroughSmtpWithStartTlsThenVerifyLoginAndUseTheSession) {
  TestGateway* gwp = nullptr;
  auto dir = std::filesystem::temp_directory_path() / ("signet-smtp-" + crypto::uuidV4());
  SmtpSink sink(dir, {true, "signet", "s3cret", false});
  ::setenv("SIGNET_TEST_SMTP_PASSWORD", "s3cret", 1);
  TestGateway gw(
      GetParam(), {"sessions"}, {},
      sessionsSettings(
          R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
          std::to_string(sink.port()) +
          R"(,"startTls":true,"username":"signet","passwordEnv":"SIGNET_TEST_SMTP_PASSWORD","caFile":")" +
          sink.certificate().string() +
          R"("},"fromAddress":"auth@signet.test","senderName":"Signet Auth"}})"));
  gwp = &gw;
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto sub = createSubOrganization(gw, kEmail, kPhone);

  auto extra = json::parseObject(
      R"({"otpLength":6,"alphanumeric":false,"replyToEmailAddress":"help@demo.example",
          "emailCustomization":{"logoUrl":"https://demo.example/logo.png"}})",
      "test");
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail, extra);
  auto mail = sink.waitForMessages(1);
  ASSERT_EQ(mail.size(), 1u);
  EXPECT_NE(mail[0].find("X-Envelope-To: " + kEmail), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("auth@signet.test"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("Reply-To: help@demo.example"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("Demo App"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("https://demo.example/logo.png"), std::string::npos) << mail[0];
  std::string code = codeIn(mail[0]);
  ASSERT_EQ(code.size(), 6u) << mail[0];
  EXPECT_EQ(code.find_first_not_of("0123456789"), std::string::npos) << code;

  auto session = newSessionKey();
  std::string token = verifyOtp(gw, otpId, code, session.publicKey);
  auto tokenClaims = gatewayJwtClaims(gw, token, /*doubleHash=*/false);
  EXPECT_EQ(tokenClaims->getValue<std::string>("contact"), kEmail);
  EXPECT_EQ(tokenClaims->getValue<std::string>("verification_type"), "OTP_TYPE_EMAIL");
  EXPECT_EQ(tokenClaims->getValue<std::string>("organization_id"), gw.root().organizationId);
  EXPECT_EQ(tokenClaims->getValue<std::string>("public_key"), session.publicKey);
  EXPECT_TRUE(tokenClaims->get("exp").isString());  // milliseconds, as a string
  EXPECT_GT(std::stoll(tokenClaims->getValue<std::string>("exp")), gw.gateway().nowMs());

  // The parent logs the user in to the sub-organization (the auth-proxy pattern).
  json::Object login = json::object();
  login->set("verificationToken", token);
  login->set("publicKey", session.publicKey);
  login->set("clientSignature", loginClientSignature(session, token, session.publicKey));
  auto jwt =
      resultOf(gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", sub.id, login),
               "otpLoginResult")
          ->getValue<std::string>("session");
  auto claims = gatewayJwtClaims(gw, jwt, /*doubleHash=*/true);
  EXPECT_EQ(claims->getValue<std::string>("user_id"), sub.userId);
  EXPECT_EQ(claims->getValue<std::string>("organization_id"), sub.id);
  EXPECT_EQ(claims->getValue<std::string>("session_type"), "SESSION_TYPE_READ_WRITE");
  EXPECT_EQ(claims->getValue<std::string>("public_key"), session.publicKey);
  EXPECT_NEAR(static_cast<double>(claims->getValue<int64_t>("exp")),
              static_cast<double>(gw.gateway().nowMs() / 1000 + 900), 5.0);

  auto me = gw.clientWith(session.stamper()).query("whoami", orgBody(sub.id));
  EXPECT_EQ(me->getValue<std::string>("userId"), sub.userId);
  EXPECT_EQ(me->getValue<std::string>("organizationId"), sub.id);

  // Single use: the code and the token.
  EXPECT_NE(requestErrorOf([&] {
              verifyOtp(gw, otpId, code, session.publicKey);
            }).find("Invalid OTP code"),
            std::string::npos);
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", sub.id, login);
            }).find("has already been used"),
            std::string::npos);
  (void)gwp;
  std::filesystem::remove_all(dir);
}

TEST_P(OtpTest, EncryptedCodeToTheSignedTargetBundle) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto r = resultOf(
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_EMAIL", kEmail)),
      "initOtpResultV2");
  std::string otpId = r->getValue<std::string>("otpId");
  std::string code = codeIn(newestOutboxMessage(gw));
  ASSERT_EQ(code.size(), 9u);  // the default: 9 Crockford base32 characters
  auto data = bundles::openEnvelope(r->getValue<std::string>("otpEncryptionTargetBundle"),
                                    gw.gateway().signerPublicKey());
  ASSERT_TRUE(data) << "the target bundle is not signed by the gateway signer";
  auto target = *fromHex(json::parseObject(*data, "data")->getValue<std::string>("targetPublic"));

  auto session = newSessionKey();
  auto seal = [&](const Bytes& to) {
    std::string plain =
        R"({"otp_code":")" + code + R"(","public_key":")" + session.publicKey + R"("})";
    return bundles::sealedJson(
        bundles::seal(to, reinterpret_cast<const uint8_t*>(plain.data()), plain.size()));
  };
  json::Object p = json::object();
  p->set("otpId", otpId);
  // Sealed to some other key: refused, and it is not a try.
  p->set("encryptedOtpBundle", seal(*fromHex(newSessionKey().publicKey)));
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2",
                                     gw.root().organizationId, p);
            }).find("not encrypted to OTP"),
            std::string::npos);
  p->set("encryptedOtpBundle", seal(target));
  auto token = resultOf(gw.rootClient().submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP_V2",
                                               gw.root().organizationId, p),
                        "verifyOtpResult")
                   ->getValue<std::string>("verificationToken");
  EXPECT_EQ(gatewayJwtClaims(gw, token, false)->getValue<std::string>("public_key"),
            session.publicKey);
  // The code and target key are gone from the keyring once spent.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ? OR id = ?",
                     {"otp-code:" + otpId, "otp-target:" + otpId}),
            0);
}

TEST_P(OtpTest, ThreeWrongTriesLockTheCode) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  std::string code = codeIn(newestOutboxMessage(gw));
  ASSERT_FALSE(code.empty());
  std::string wrong = code == "000000000" ? "111111111" : "000000000";
  for (int i = 1; i <= 3; ++i) {
    std::string err = requestErrorOf([&] { verifyOtp(gw, otpId, wrong, ""); });
    EXPECT_NE(err.find("Invalid OTP code"), std::string::npos) << err;
    EXPECT_EQ(gw.count("SELECT attempts FROM session_otps WHERE id = ?", {otpId}), i);
  }
  std::string err = requestErrorOf([&] { verifyOtp(gw, otpId, code, ""); });
  EXPECT_NE(err.find("locked after 3 failed attempts"), std::string::npos) << err;
}

// The code is a secret of the row: once verify_otp has run, completed or denied, its stored
// intent and signed request keep "<redacted>" instead, and a denied attempt leaves the code
// usable by its owner without anyone who reads activities having seen it.
TEST_P(OtpTest, TheCodeIsRedactedFromTheStoredActivityOnceItHasRun) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  Org org(gw);
  std::string alice = org.user("alice");  // no policy lets her verify codes
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  std::string code = codeIn(newestOutboxMessage(gw));
  ASSERT_FALSE(code.empty());
  auto stored = [&](const std::string& activityId) {
    auto body = orgBody(gw.root().organizationId);
    body->set("activityId", activityId);
    return gw.rootClient().query("get_activity", body)->getObject("activity");
  };
  auto expectRedacted = [&](const json::Object& activity) {
    EXPECT_EQ(activity->getObject("intent")
                  ->getObject("verifyOtpIntent")
                  ->getValue<std::string>("otpCode"),
              "<redacted>");
    EXPECT_EQ(json::stringify(activity).find(code), std::string::npos) << json::stringify(activity);
  };
  auto denied = org.as(alice).submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP",
                                     gw.root().organizationId, verifyParams(otpId, code, ""));
  EXPECT_EQ(denied->getValue<std::string>("status"), "ACTIVITY_STATUS_FAILED");
  expectRedacted(denied);
  expectRedacted(stored(denied->getValue<std::string>("id")));

  // The code was not spent by the denied attempt: its owner's verification still works.
  auto done = gw.rootClient().submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP",
                                     gw.root().organizationId, verifyParams(otpId, code, ""));
  EXPECT_FALSE(
      resultOf(done, "verifyOtpResult")->getValue<std::string>("verificationToken").empty());
  expectRedacted(stored(done->getValue<std::string>("id")));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE intent LIKE ?", {"%" + code + "%"}), 0);
}

// While verify_otp waits for an approval, its code is sealed in the keyring, not stored: the
// approval that runs it opens it, and the sealed copy goes once the activity is done.
TEST_P(OtpTest, TheCodeIsSealedWhileTheActivityWaitsForVotes) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  Org org(gw);
  std::string alice = org.user("alice");
  org.policy("alice verifies with the root user's approval", "EFFECT_ALLOW",
             "activity.resource == 'OTP' && activity.action == 'VERIFY'",
             "approvers.any(user, user.id == '" + gw.root().userId + "')");
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  std::string code = codeIn(newestOutboxMessage(gw));
  ASSERT_FALSE(code.empty());
  auto waiting = org.as(alice).submit("verify_otp", "ACTIVITY_TYPE_VERIFY_OTP",
                                      gw.root().organizationId, verifyParams(otpId, code, ""));
  ASSERT_EQ(waiting->getValue<std::string>("status"), "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  std::string id = waiting->getValue<std::string>("id");
  auto storedText = [&] {
    std::string text;
    gw.write([&](Db& db) {
      auto row = db.queryOne("SELECT intent, votes, result FROM activities WHERE id = ?", {id});
      text = row->str("intent") + row->str("votes") + row->str("result");
    });
    return text;
  };
  EXPECT_EQ(storedText().find(code), std::string::npos) << storedText();
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?",
                     {"activity-intent:" + id + ":otpCode"}),
            1);

  json::Object approve = json::object();
  approve->set("fingerprint", waiting->getValue<std::string>("fingerprint"));
  auto done = gw.rootClient().submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY",
                                     gw.root().organizationId, approve);
  EXPECT_EQ(done->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED")
      << json::stringify(done);
  std::string token = resultOf(done, "verifyOtpResult")->getValue<std::string>("verificationToken");
  EXPECT_FALSE(token.empty());
  EXPECT_EQ(storedText().find(code), std::string::npos);
  EXPECT_EQ(storedText().find(token), std::string::npos);  // the token is a sealed result
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?",
                     {"activity-intent:" + id + ":otpCode"}),
            0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?",
                     {"activity-result:" + id + ":verificationToken"}),
            1);
}

// A store written before tokens were sealed holds them in clear: the first start of this
// version seals them, and get_activity still returns them.
TEST_P(OtpTest, TokensAStoreHeldInClearAreSealedAtStart) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  std::string token = verifyOtp(gw, otpId, codeIn(newestOutboxMessage(gw)), "");
  std::string id;
  // What an earlier version left: the token in the result, nothing sealed, no mark of sealing.
  gw.write([&](Db& db) {
    id =
        db.queryOne("SELECT id FROM activities WHERE type = 'ACTIVITY_TYPE_VERIFY_OTP'")->str("id");
    db.exec("UPDATE activities SET result = ? WHERE id = ?",
            {"{\"verifyOtpResult\":{\"verificationToken\":\"" + token + "\"}}", id});
    db.exec("DELETE FROM signet_secrets WHERE id LIKE 'activity-result:%'");
    db.exec("DELETE FROM gateway_settings WHERE name LIKE 'secrets_in_activities_sealed:%'");
  });
  auto inClear = [&] {
    return gw.count("SELECT COUNT(*) FROM activities WHERE result LIKE ?", {"%" + token + "%"});
  };
  ASSERT_EQ(inClear(), 1);
  gw.restart();
  EXPECT_EQ(inClear(), 0);
  auto body = orgBody(gw.root().organizationId);
  body->set("activityId", id);
  auto activity = gw.rootClient().query("get_activity", body)->getObject("activity");
  EXPECT_EQ(resultOf(activity, "verifyOtpResult")->getValue<std::string>("verificationToken"),
            token);
}

TEST_P(OtpTest, LiveCodeAndRequestLimitsPerUser) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  for (int i = 0; i < 3; ++i) initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  auto refused =
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_EMAIL", "ALICE@example.com"));
  EXPECT_NE(failureOf(refused).find("Max number of OTPs have been initiated"), std::string::npos);
  // The mailbox is what is counted: a +tag or quotes reach the same one.
  for (const char* same : {"alice+again@example.com", "\"alice\"@example.com"})
    EXPECT_NE(failureOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                               gw.root().organizationId,
                                               initOtpParams("OTP_TYPE_EMAIL", same)))
                  .find("Max number of OTPs have been initiated"),
              std::string::npos)
        << same;
  initOtp(gw, "OTP_TYPE_EMAIL", "bob@example.com");  // another user is not limited
  // After the 3-minute window the request limit lifts, but 3 codes are still live (5 min).
  int64_t start = gw.gateway().nowMs();
  // setTime moves the clients' timestamps too: two identical requests in one millisecond would
  // otherwise be one activity (the same fingerprint), answered with the first's outcome.
  gw.setTime(start + 4 * 60 * 1000);
  EXPECT_NE(failureOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                             gw.root().organizationId,
                                             initOtpParams("OTP_TYPE_EMAIL", kEmail)))
                .find("live codes"),
            std::string::npos);
  gw.setTime(start + 6 * 60 * 1000);
  initOtp(gw, "OTP_TYPE_EMAIL", kEmail);
  // userIdentifier, when given, is what the limits count.
  auto withId = json::object();
  withId->set("userIdentifier", "device-1");
  for (int i = 0; i < 3; ++i)
    initOtp(gw, "OTP_TYPE_EMAIL", "c" + std::to_string(i) + "@x.io", withId);
  auto p = initOtpParams("OTP_TYPE_EMAIL", "d@x.io");
  p->set("userIdentifier", "device-1");
  EXPECT_NE(failureOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                             gw.root().organizationId, p))
                .find("Max number of OTPs"),
            std::string::npos);
}

// What the relay answered each email is on record (email_events.hpp), as list_email_events
// gives it: a Send with the relay's reply, a DeliveryDelay for a 451, a Bounce for a 550 (the
// sink refuses mailboxes named defer* and bounce* so), newest first, by recipient, by type, a
// page at a time, and only to the organization that sent them.
TEST_P(OtpTest, EmailEventsAreWhatTheRelayAnsweredEachMessage) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-smtp-" + crypto::uuidV4());
  SmtpSink sink(dir);
  TestGateway gw(
      GetParam(), {"sessions"}, {},
      sessionsSettings(R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
                       std::to_string(sink.port()) + R"(,"startTls":false}}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  const std::string org = gw.root().organizationId;
  auto send = [&](const std::string& to) {
    return gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", org,
                                  initOtpParams("OTP_TYPE_EMAIL", to));
  };
  EXPECT_EQ(send("ok@example.com")->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_NE(failureOf(send("defer@example.com")).find("the relay answered 451"), std::string::npos);
  EXPECT_NE(failureOf(send("bounce@example.com")).find("the relay answered 550"),
            std::string::npos);
  EXPECT_EQ(send("ok@example.com")->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");

  auto list = [&](const std::string& email, const std::string& type = "",
                  const std::string& pagination = "") {
    json::Object body = orgBody(org);
    body->set("email", email);
    if (!type.empty()) body->set("eventType", type);
    if (!pagination.empty())
      body->set("paginationOptions", json::parseObject(pagination, "paginationOptions"));
    return gw.rootClient().query("list_email_events", body)->getArray("emailEvents");
  };
  auto event = [](const json::Array& events, unsigned i) { return events->getObject(i); };

  auto sent = list("ok@example.com");
  ASSERT_EQ(sent->size(), 2u);
  auto messages = sink.waitForMessages(2);
  for (unsigned i = 0; i < 2; ++i) {
    auto e = event(sent, i);
    EXPECT_EQ(e->getValue<std::string>("eventType"), "Send");
    EXPECT_EQ(e->getValue<std::string>("organizationId"), org);
    EXPECT_EQ(e->getValue<std::string>("toAddress"), "ok@example.com");
    EXPECT_FALSE(e->getValue<std::string>("fromAddress").empty());
    EXPECT_EQ(e->getObject("details")->getValue<std::string>("deliverySmtpResponse"),
              "250 Message accepted");
    // The id the message itself carries, newest first: the second message sent is listed first.
    EXPECT_NE(messages[1 - i].find("Message-ID: <" + e->getValue<std::string>("messageId") + ">"),
              std::string::npos)
        << messages[1 - i].substr(0, 600);
  }
  EXPECT_GE(std::stoll(event(sent, 0)->getValue<std::string>("timestamp")),
            std::stoll(event(sent, 1)->getValue<std::string>("timestamp")));

  auto deferred = list("defer@example.com");
  ASSERT_EQ(deferred->size(), 1u);
  EXPECT_EQ(event(deferred, 0)->getValue<std::string>("eventType"), "DeliveryDelay");
  EXPECT_EQ(event(deferred, 0)->getObject("details")->getValue<std::string>("diagnosticCode"),
            "451 4.3.0 mailbox busy, try again later");
  EXPECT_EQ(event(deferred, 0)->getObject("details")->getValue<std::string>("deliveryDelayType"),
            "RecipientServerError");
  auto bounced = list("bounce@example.com");
  ASSERT_EQ(bounced->size(), 1u);
  EXPECT_EQ(event(bounced, 0)->getValue<std::string>("eventType"), "Bounce");
  EXPECT_EQ(event(bounced, 0)->getObject("details")->getValue<std::string>("bounceType"),
            "Permanent");
  EXPECT_EQ(event(bounced, 0)->getObject("details")->getValue<std::string>("diagnosticCode"),
            "550 5.1.1 mailbox unavailable");

  EXPECT_EQ(list("ok@example.com", "Bounce")->size(), 0u);
  EXPECT_EQ(list("bounce@example.com", "Bounce")->size(), 1u);
  auto first = list("ok@example.com", "", R"({"limit":"1"})");
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ(event(first, 0)->getValue<std::string>("id"),
            event(sent, 0)->getValue<std::string>("id"));
  auto next =
      list("ok@example.com", "",
           R"({"limit":"1","after":")" + event(first, 0)->getValue<std::string>("id") + R"("})");
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ(event(next, 0)->getValue<std::string>("id"),
            event(sent, 1)->getValue<std::string>("id"));

  // Bad input names the field; another organization sees none of these.
  for (const auto& [field, body] : std::vector<std::pair<std::string, std::string>>{
           {"eventType", R"("email":"ok@example.com","eventType":"Open")"},
           {"email", R"("eventType":"Send")"}}) {
    auto r = gw.rootClient().post("/public/v1/query/list_email_events",
                                  R"({"organizationId":")" + org + "\"," + body + "}");
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_NE(r.body.find(field), std::string::npos) << r.body;
  }
  auto [other, otherStamper] = gw.createOrganization("other");
  json::Object theirs = orgBody(other.organizationId);
  theirs->set("email", "ok@example.com");
  EXPECT_EQ(gw.clientWith(otherStamper)
                .query("list_email_events", theirs)
                ->getArray("emailEvents")
                ->size(),
            0u);
  std::filesystem::remove_all(dir);
}

TEST_P(OtpTest, DeliveryFailuresFailTheActivityAndLeaveNoCode) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-smtp-" + crypto::uuidV4());
  SmtpSink sink(dir, {false, "", "", /*rejectRecipients=*/true});
  HttpRecorder sms;
  sms.answerWith(500);
  TestGateway gw(
      GetParam(), {"sessions"}, {},
      sessionsSettings(R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
                       std::to_string(sink.port()) +
                       R"(,"startTls":false}},"sms":{"transport":"http","url":")" +
                       sms.url("/send") + R"("}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  enableFeature(gw, "FEATURE_NAME_SMS_AUTH");
  auto email =
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_EMAIL", kEmail));
  EXPECT_NE(failureOf(email).find("email delivery to " + kEmail), std::string::npos);
  auto text =
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_SMS", kPhone));
  EXPECT_NE(failureOf(text).find("SMS delivery to " + kPhone + " failed: the provider"),
            std::string::npos);
  EXPECT_EQ(sms.requests().size(), 1u);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM session_otps"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE kind = 'otp-code'"), 0);
  std::filesystem::remove_all(dir);
}

// A relay that trickles its greeting (a line every 200 ms, never the last one) is cut off at the
// delivery's deadline, however long it would go on: the activity fails saying so, and no code
// is left.
TEST_P(OtpTest, ATricklingRelayIsCutOffAtTheDeadline) {
  TcpPeer relay([](int fd, const std::atomic<bool>& stopping) {
    while (!stopping) {
      TcpPeer::sendAll(fd, "220-relay\r\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  TestGateway gw(GetParam(), {"sessions"}, {},
                 sessionsSettings(
                     R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
                     std::to_string(relay.port()) + R"(,"startTls":false,"timeoutSeconds":1}}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto started = std::chrono::steady_clock::now();
  auto email =
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_EMAIL", kEmail));
  EXPECT_NE(failureOf(email).find("did not finish in time"), std::string::npos)
      << json::stringify(email);
  // The deadline is 1 s; the margin is for a loaded machine, far below how long it would go on.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));
  EXPECT_EQ(relay.accepted(), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM session_otps"), 0);
}

// A slow provider holds up only its own request: while an SMS waits for the provider's answer,
// another activity that writes completes, and the waiting one is PENDING, not COMPLETED, until
// the provider answers.
TEST_P(OtpTest, ASlowProviderHoldsUpOnlyItsOwnRequest) {
  HttpRecorder provider;
  provider.holdAnswers();
  TestGateway gw(GetParam(), {"sessions"}, {},
                 sessionsSettings(R"({"sms":{"transport":"http","url":")" +
                                  provider.url("/v1/messages") + R"("}})"));
  enableFeature(gw, "FEATURE_NAME_SMS_AUTH");
  std::string otpStatus;
  std::thread slow([&] {
    otpStatus = gw.rootClient()
                    .submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                            initOtpParams("OTP_TYPE_SMS", kPhone))
                    ->getValue<std::string>("status");
  });
  ASSERT_TRUE(provider.waitForRequests(1));  // the SMS is with the provider, unanswered
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE type = ? AND status = ?",
                     {"ACTIVITY_TYPE_INIT_OTP_V2", "ACTIVITY_STATUS_PENDING"}),
            1);
  json::Object user = json::object();
  user->set("userName", "meanwhile");
  user->set("userEmail", "meanwhile@x.io");
  user->set("apiKeys", json::array());
  user->set("authenticators", json::array());
  user->set("oauthProviders", json::array());
  user->set("userTags", json::array());
  json::Object users = json::object();
  json::Array list = json::array();
  list->add(user);
  users->set("users", list);
  auto created = gw.rootClient().submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V3",
                                        gw.root().organizationId, users);
  EXPECT_EQ(created->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  provider.release();
  slow.join();
  EXPECT_FALSE(provider.heldTooLong()) << "the other write waited for the provider";
  EXPECT_EQ(otpStatus, "ACTIVITY_STATUS_COMPLETED");
}

TEST_P(OtpTest, SmsThroughTheHttpProvider) {
  HttpRecorder provider;
  ::setenv("SIGNET_TEST_SMS_AUTH", "Bearer sms-token", 1);
  TestGateway gw(
      GetParam(), {"sessions"}, {},
      sessionsSettings(R"({"sms":{"transport":"http","url":")" + provider.url("/v1/messages") +
                       R"(","authorizationEnv":"SIGNET_TEST_SMS_AUTH"}})"));
  enableFeature(gw, "FEATURE_NAME_SMS_AUTH");
  auto extra = json::parseObject(R"({"smsCustomization":{"template":"Code: {{.OtpCode}}"}})", "t");
  std::string otpId = initOtp(gw, "OTP_TYPE_SMS", kPhone, extra);
  auto requests = provider.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].authorization, "Bearer sms-token");
  auto body = json::parseObject(requests[0].body, "sms");
  EXPECT_EQ(body->getValue<std::string>("to"), kPhone);
  std::string code = codeIn(body->getValue<std::string>("body"));
  ASSERT_FALSE(code.empty()) << requests[0].body;
  auto token = verifyOtp(gw, otpId, code, "");
  EXPECT_EQ(gatewayJwtClaims(gw, token, false)->getValue<std::string>("verification_type"),
            "OTP_TYPE_SMS");
}

TEST_P(OtpTest, OutboxModeSaysSoAndFeatureFlagsAreHonoured) {
  TestGateway gw(GetParam(), {"sessions"});
  bool announced = false;
  for (const auto& m : gw.gateway().catalog().modules())
    for (const auto& n : m->startupNotices)
      announced = announced || (m->name == "sessions" && n.find("outbox") != std::string::npos);
  EXPECT_TRUE(announced);

  auto off =
      gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", gw.root().organizationId,
                             initOtpParams("OTP_TYPE_EMAIL", kEmail));
  EXPECT_NE(failureOf(off).find("FEATURE_NAME_OTP_EMAIL_AUTH"), std::string::npos);
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto flags = json::object();
  flags->set("disableOtpEmailAuth", true);
  auto closed = createSubOrganization(gw, kEmail, kPhone, flags);
  auto open = createSubOrganization(gw, "carol@example.com", "+14155550124");
  auto inClosed = gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", closed.id,
                                         initOtpParams("OTP_TYPE_EMAIL", kEmail));
  EXPECT_NE(failureOf(inClosed).find("not enabled for organization " + closed.id),
            std::string::npos);
  resultOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", open.id,
                                  initOtpParams("OTP_TYPE_EMAIL", "carol@example.com")),
           "initOtpResult");
  EXPECT_FALSE(codeIn(newestOutboxMessage(gw)).empty());
  // SMS was never enabled.
  EXPECT_NE(failureOf(gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2", open.id,
                                             initOtpParams("OTP_TYPE_SMS", "+14155550124")))
                .find("FEATURE_NAME_SMS_AUTH"),
            std::string::npos);
  // Bad input is refused naming the field, and stores nothing.
  auto bad = initOtpParams("OTP_TYPE_EMAIL", kEmail);
  bad->set("otpLength", 12);
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                     gw.root().organizationId, bad);
            }).find("parameters.otpLength: must be 6 to 9, got 12"),
            std::string::npos);
  bad = initOtpParams("OTP_TYPE_EMAIL", kEmail);
  bad->set("sendFromEmailAddress", "ceo@bank.example");
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                     gw.root().organizationId, bad);
            }).find("not an allowed sender"),
            std::string::npos);
}

TEST_P(OtpTest, TemplatesTemplateVariablesAndAllowedSenders) {
  TestGateway gw(GetParam(), {"sessions"}, {},
                 sessionsSettings(R"({"email":{"allowedFromAddresses":["team@demo.example"],
                   "templates":{"welcome":{"subject":"Welcome to {{.AppName}}",
                     "text":"Hello {{ index .TemplateVariables \"name\" }}! Code: {{.OtpCode}}",
                     "html":"<p>Hello {{ index .TemplateVariables \"name\" }}</p>"}}}})"));
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto extra = json::parseObject(
      R"({"sendFromEmailAddress":"team@demo.example","sendFromEmailSenderName":"Demo Team",
          "emailCustomization":{"templateId":"welcome","templateVariables":"{\"name\":\"<Alice>\"}"}})",
      "t");
  std::string otpId = initOtp(gw, "OTP_TYPE_EMAIL", kEmail, extra);
  std::string message = newestOutboxMessage(gw);
  EXPECT_NE(message.find("Subject: Welcome to Demo App"), std::string::npos) << message;
  EXPECT_NE(message.find("Hello <Alice>! Code: "), std::string::npos) << message;
  EXPECT_NE(message.find("<p>Hello &lt;Alice&gt;</p>"), std::string::npos) << message;  // escaped
  EXPECT_NE(message.find("Demo Team <team@demo.example>"), std::string::npos) << message;
  verifyOtp(gw, otpId, codeIn(message), "");
  auto unknown = initOtpParams("OTP_TYPE_EMAIL", "bob@example.com");
  unknown->set("emailCustomization", json::parseObject(R"({"templateId":"nope"})", "t"));
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("init_otp", "ACTIVITY_TYPE_INIT_OTP_V2",
                                     gw.root().organizationId, unknown);
            }).find("\"nope\" is not a template of this gateway"),
            std::string::npos);
}

TEST_P(OtpTest, OtpLoginV1AcceptsAnUnboundTokenWithoutSignatureV2DoesNot) {
  TestGateway gw(GetParam(), {"sessions"});
  auto sub = createSubOrganization(gw, kEmail, kPhone);
  auto session = newSessionKey();
  json::Object p = json::object();
  p->set("verificationToken",
         gw.mintVerificationToken("OTP_TYPE_SMS", kPhone, gw.root().organizationId));
  p->set("publicKey", session.publicKey);
  EXPECT_NE(requestErrorOf([&] {
              gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", sub.id, p);
            }).find("parameters.clientSignature: required by OTP_LOGIN_V2"),
            std::string::npos);
  auto jwt = resultOf(gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN", sub.id, p),
                      "otpLoginResult")
                 ->getValue<std::string>("session");
  EXPECT_EQ(gatewayJwtClaims(gw, jwt, true)->getValue<std::string>("user_id"), sub.userId);
  // A token for a contact nobody in the organization has logs nobody in.
  p->set("verificationToken", gw.mintVerificationToken("OTP_TYPE_EMAIL", "mallory@example.com",
                                                       gw.root().organizationId));
  EXPECT_NE(failureOf(gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN", sub.id, p))
                .find("no user with email mallory@example.com"),
            std::string::npos);
}

TEST_P(OtpTest, LegacyOtpAuthAndEmailAuthHandOutWorkingCredentialBundles) {
  TestGateway gw(GetParam(), {"sessions"});
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  enableFeature(gw, "FEATURE_NAME_EMAIL_AUTH");
  auto sub = createSubOrganization(gw, kEmail, kPhone);

  auto init = initOtpParams("OTP_TYPE_EMAIL", kEmail);
  std::string otpId = resultOf(gw.rootClient().submit(
                                   "init_otp_auth", "ACTIVITY_TYPE_INIT_OTP_AUTH_V3", sub.id, init),
                               "initOtpAuthResultV2")
                          ->getValue<std::string>("otpId");
  auto target = newSessionKey();
  json::Object p = json::object();
  p->set("otpId", otpId);
  p->set("otpCode", codeIn(newestOutboxMessage(gw)));
  p->set("targetPublicKey",
         toHex(crypto::uncompressPublicKey(crypto::Curve::kP256, *fromHex(target.publicKey))));
  auto r = resultOf(gw.rootClient().submit("otp_auth", "ACTIVITY_TYPE_OTP_AUTH", sub.id, p),
                    "otpAuthResult");
  EXPECT_EQ(r->getValue<std::string>("userId"), sub.userId);
  auto stamper = stamperFromBundle(target, r->getValue<std::string>("credentialBundle"));
  ASSERT_TRUE(stamper);
  EXPECT_EQ(
      gw.clientWith(stamper).query("whoami", orgBody(sub.id))->getValue<std::string>("userId"),
      sub.userId);

  auto email = json::parseObject(
      R"({"email":")" + kEmail + R"(","targetPublicKey":")" + target.publicKey +
          R"(","emailCustomization":{"appName":"Demo App","magicLinkTemplate":"https://demo.example/auth?bundle=%s"}})",
      "t");
  auto er =
      resultOf(gw.rootClient().submit("email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", sub.id, email),
               "emailAuthResult");
  EXPECT_EQ(er->getValue<std::string>("userId"), sub.userId);
  EXPECT_FALSE(er->has("credentialBundle"));  // it travels only by email
  std::string message = newestOutboxMessage(gw);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(message, m, std::regex(R"(auth\?bundle=([1-9A-HJ-NP-Za-km-z]+))")))
      << message;
  auto emailStamper = stamperFromBundle(target, m[1].str());
  ASSERT_TRUE(emailStamper);
  EXPECT_EQ(
      gw.clientWith(emailStamper).query("whoami", orgBody(sub.id))->getValue<std::string>("userId"),
      sub.userId);
}

}  // namespace
}  // namespace signet::test
