// Email recovery and invitations through a real gateway and a real SMTP server on loopback:
// init_user_email_recovery emails a recovery bundle, recover_user stamped with it adds a
// passkey, and the features and flags that govern it; create_invitations emails each
// receiver, and an invitation whose email cannot be sent is not kept.
#include <regex>

#include "signet/bundles.hpp"
#include "support/auth_fixtures.hpp"
#include "support/smtp_sink.hpp"
#include "support/software_authenticator.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class RecoveryTest : public BackendTest {};
SIGNET_BACKEND_SUITE(RecoveryTest);

const std::string kEmail = "rosa@example.com";

std::map<std::string, json::Object> smtpSettings(const SmtpSink& sink) {
  return {{"sessions",
           json::parseObject(R"({"email":{"transport":"smtp","smtp":{"host":"127.0.0.1","port":)" +
                                 std::to_string(sink.port()) +
                                 R"(,"startTls":false},"fromAddress":"help@signet.test"}})",
                             "settings")}};
}

std::filesystem::path sinkDir() {
  return std::filesystem::temp_directory_path() / ("signet-smtp-" + crypto::uuidV4());
}

json::Object recoveryParams(const std::string& email, const SessionKey& target) {
  return json::parseObject(
      R"({"email":")" + email + R"(","targetPublicKey":")" + target.publicKey +
          R"(","emailCustomization":{"appName":"Demo","magicLinkTemplate":"https://demo.example/recover?bundle=%s"}})",
      "t");
}

json::Object initRecovery(TestGateway& gw, const std::string& org, const json::Object& p) {
  return gw.rootClient().submit("init_user_email_recovery",
                                "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", org, p);
}

// The recovery key from the newest message: the bundle in the magic link, opened.
std::shared_ptr<ApiKeyStamper> recoveryKeyFrom(const std::string& message,
                                               const SessionKey& target) {
  std::smatch m;
  EXPECT_TRUE(
      std::regex_search(message, m, std::regex(R"(recover\?bundle=([1-9A-HJ-NP-Za-km-z]+))")))
      << message;
  return stamperFromBundle(target, m[1].str());
}

json::Object recoverParams(const std::string& userId, const SoftwareAuthenticator& passkey) {
  json::Object p = json::object();
  p->set("userId", userId);
  p->set("authenticator",
         passkey.registration("recovered phone", base64UrlEncode(crypto::randomBytes(32))));
  return p;
}

TEST_P(RecoveryTest, ARecoveryBundleByEmailAddsAPasskeyOnce) {
  auto dir = sinkDir();
  SmtpSink sink(dir);
  TestGateway gw(GetParam(), {"sessions"}, {}, smtpSettings(sink));
  enableFeature(gw, "FEATURE_NAME_EMAIL_RECOVERY");
  auto sub = createSubOrganization(gw, kEmail, "+14155550190");

  auto target = newSessionKey();
  auto started = resultOf(initRecovery(gw, sub.id, recoveryParams(kEmail, target)),
                          "initUserEmailRecoveryResult");
  EXPECT_EQ(started->getValue<std::string>("userId"), sub.userId);
  auto mail = sink.waitForMessages(1);
  ASSERT_EQ(mail.size(), 1u);
  EXPECT_NE(mail[0].find("X-Envelope-To: " + kEmail), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("Recover your Demo account"), std::string::npos) << mail[0];
  auto recoveryKey = recoveryKeyFrom(mail[0], target);
  ASSERT_TRUE(recoveryKey);

  // The user's everyday key cannot stand in for the recovery credential.
  auto passkey = std::make_shared<SoftwareAuthenticator>();
  std::string message = refusalOf([&] {
    return gw.clientWith(sub.userKey.stamper)
        .submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER", sub.id,
                recoverParams(sub.userId, *passkey));
  });
  EXPECT_NE(message.find("must be stamped with the recovery credential"), std::string::npos)
      << message;

  auto recovered = resultOf(gw.clientWith(recoveryKey)
                                .submit("recover_user", "ACTIVITY_TYPE_RECOVER_USER", sub.id,
                                        recoverParams(sub.userId, *passkey)),
                            "recoverUserResult");
  EXPECT_EQ(recovered->getArray("authenticatorId")->size(), 1u);
  EXPECT_EQ(
      gw.clientWith(passkey).query("whoami", orgBody(sub.id))->getValue<std::string>("userId"),
      sub.userId);
  // The recovery credential was used up.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM api_keys WHERE user_id = ? AND credential_type = ?",
                     {sub.userId, std::string("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256")}),
            0);
  EXPECT_THROW(gw.clientWith(recoveryKey).query("whoami", orgBody(sub.id)), RequestError);
}

TEST_P(RecoveryTest, FeaturesAndFlagsDecideWhoMayRecover) {
  auto dir = sinkDir();
  SmtpSink sink(dir);
  TestGateway gw(GetParam(), {"sessions"}, {}, smtpSettings(sink));
  auto sub = createSubOrganization(gw, kEmail, "+14155550191");
  auto target = newSessionKey();
  auto recoveryKeys = [&] {
    return gw.count("SELECT COUNT(*) FROM api_keys WHERE credential_type = ?",
                    {std::string("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256")});
  };

  // Without FEATURE_NAME_EMAIL_RECOVERY on the root organization.
  std::string message =
      refusalOf([&] { return initRecovery(gw, sub.id, recoveryParams(kEmail, target)); });
  EXPECT_NE(message.find("FEATURE_NAME_EMAIL_RECOVERY"), std::string::npos) << message;
  enableFeature(gw, "FEATURE_NAME_EMAIL_RECOVERY");

  // A sub-organization created with disableEmailRecovery.
  json::Object flags = json::object();
  flags->set("disableEmailRecovery", true);
  auto closed = createSubOrganization(gw, "closed@example.com", "+14155550192", flags);
  message = refusalOf(
      [&] { return initRecovery(gw, closed.id, recoveryParams("closed@example.com", target)); });
  EXPECT_NE(message.find("must not have disabled it"), std::string::npos) << message;

  // The root organization's own root user needs FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY too.
  json::Object email = json::object();
  email->set("userId", gw.root().userId);
  email->set("userEmail", "founder@example.com");
  resultOf(gw.rootClient().submit("update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
                                  gw.root().organizationId, email),
           "updateUserEmailResult");
  message = refusalOf([&] {
    return initRecovery(gw, gw.root().organizationId,
                        recoveryParams("founder@example.com", target));
  });
  EXPECT_NE(message.find("FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY"), std::string::npos) << message;
  EXPECT_EQ(recoveryKeys(), 0);
  EXPECT_TRUE(sink.messages().empty());

  enableFeature(gw, "FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY");
  resultOf(
      initRecovery(gw, gw.root().organizationId, recoveryParams("founder@example.com", target)),
      "initUserEmailRecoveryResult");
  EXPECT_EQ(sink.waitForMessages(1).size(), 1u);
}

TEST_P(RecoveryTest, InvitationsAreEmailedAndOneThatCannotBeSentIsNotKept) {
  auto dir = sinkDir();
  SmtpSink sink(dir);
  TestGateway gw(GetParam(), {"sessions"}, {}, smtpSettings(sink));
  Client root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  auto invitation = [&](const std::string& email, const std::vector<std::string>& tags = {}) {
    json::Object i = json::object();
    i->set("receiverUserName", "Nell");
    i->set("receiverUserEmail", email);
    i->set("receiverUserTags", json::stringArray(tags));
    i->set("accessType", "ACCESS_TYPE_WEB");
    i->set("senderUserId", gw.root().userId);
    json::Array list = json::array();
    list->add(i);
    json::Object p = json::object();
    p->set("invitations", list);
    return p;
  };
  auto created = resultOf(root.submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", org,
                                      invitation("nell@example.com")),
                          "createInvitationsResult");
  std::string id = created->getArray("invitationIds")->getElement<std::string>(0);
  auto mail = sink.waitForMessages(1);
  ASSERT_EQ(mail.size(), 1u);
  EXPECT_NE(mail[0].find("X-Envelope-To: nell@example.com"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find("Test Org"), std::string::npos) << mail[0];
  EXPECT_NE(mail[0].find(id), std::string::npos) << mail[0];

  // Bad input: a tag that does not exist, an unknown access type; nothing kept, nothing sent.
  std::string message = refusalOf([&] {
    return root.submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS", org,
                       invitation("olga@example.com", {crypto::uuidV4()}));
  });
  EXPECT_NE(message.find("receiverUserTags[0]"), std::string::npos) << message;
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM invitations"), 1);

  json::Object del = json::object();
  del->set("invitationId", id);
  resultOf(root.submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", org, del),
           "deleteInvitationResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM invitations"), 0);
  del->set("invitationId", crypto::uuidV4());
  EXPECT_EQ(status(root.submit("delete_invitation", "ACTIVITY_TYPE_DELETE_INVITATION", org, del)),
            kFailed);
  EXPECT_EQ(sink.messages().size(), 1u);
}

TEST_P(RecoveryTest, AnInvitationWhoseEmailIsRefusedFailsAndIsRemoved) {
  auto dir = sinkDir();
  SmtpSink sink(dir, {false, "", "", /*rejectRecipients=*/true});
  TestGateway gw(GetParam(), {"sessions"}, {}, smtpSettings(sink));
  json::Object i = json::object();
  i->set("receiverUserName", "Pia");
  i->set("receiverUserEmail", "pia@example.com");
  i->set("receiverUserTags", json::array());
  i->set("accessType", "ACCESS_TYPE_ALL");
  i->set("senderUserId", gw.root().userId);
  json::Array list = json::array();
  list->add(i);
  json::Object p = json::object();
  p->set("invitations", list);
  auto a = gw.rootClient().submit("create_invitations", "ACTIVITY_TYPE_CREATE_INVITATIONS",
                                  gw.root().organizationId, p);
  EXPECT_EQ(status(a), kFailed) << json::stringify(a);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM invitations"), 0);
}

}  // namespace
}  // namespace signet::test
