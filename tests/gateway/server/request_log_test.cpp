// The request log: one JSON object a line, carrying the request id (the client's X-Request-Id,
// echoed in the answer, or a new one), the organization and the activity's type and status,
// and never a body, a stamp or a secret: the test collects every secret an OTP login makes and
// greps the captured lines for them.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <set>

#include "support/auth_fixtures.hpp"
#include "support/log_capture.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class RequestLogTest : public BackendTest {};
SIGNET_BACKEND_SUITE(RequestLogTest);

TEST_P(RequestLogTest, OneJsonLineARequestWithItsIdAndNoSecret) {
  TestGateway gw(GetParam(), {"sessions"});
  LogCapture capture("signet.http");
  enableFeature(gw, "FEATURE_NAME_OTP_EMAIL_AUTH");
  auto sub = createSubOrganization(gw, "lou@example.com", "+14155550177");

  // An OTP login makes every kind of secret the sessions plugin handles.
  auto session = newSessionKey();
  std::string token = emailVerificationToken(gw, "lou@example.com", session);
  std::string code = codeIn(newestOutboxMessage(gw));
  json::Object login = json::object();
  login->set("verificationToken", token);
  login->set("publicKey", session.publicKey);
  login->set("clientSignature", loginClientSignature(session, token, session.publicKey));
  auto activity = gw.rootClient().submit("otp_login", "ACTIVITY_TYPE_OTP_LOGIN_V2", sub.id, login);
  std::string jwt = resultOf(activity, "otpLoginResult")->getValue<std::string>("session");
  // A body's content must not reach the log either.
  json::Object tag = json::object();
  tag->set("userTagName", "body-marker-5b1e");
  tag->set("userIds", json::array());
  gw.rootClient().submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG",
                         gw.root().organizationId, tag);

  // A client's own request id comes back and is in the line.
  Poco::Net::HTTPClientSession http("127.0.0.1", gw.port());
  Poco::Net::HTTPRequest get(Poco::Net::HTTPRequest::HTTP_GET, "/healthz",
                             Poco::Net::HTTPMessage::HTTP_1_1);
  get.set("X-Request-Id", "trace-7f3a.1");
  http.sendRequest(get);
  Poco::Net::HTTPResponse answer;
  http.receiveResponse(answer).ignore(1 << 20);
  EXPECT_EQ(answer.get("X-Request-Id", ""), "trace-7f3a.1");
  // One that a log line cannot carry as it is gets replaced.
  get.set("X-Request-Id", "bad id\twith\"quotes");
  http.sendRequest(get);
  http.receiveResponse(answer).ignore(1 << 20);
  EXPECT_NE(answer.get("X-Request-Id", ""), "bad id\twith\"quotes");
  EXPECT_EQ(answer.get("X-Request-Id", "").size(), 36u);

  auto lines = capture.lines();
  ASSERT_GE(lines.size(), 8u);
  bool sawTrace = false, sawLogin = false;
  std::set<std::string> ids;
  for (const auto& line : lines) {
    auto o = json::parseObject(line, "log line");  // every line is one JSON object
    EXPECT_TRUE(o->has("requestId") && o->has("status") && o->has("durationUs") && o->has("path") &&
                o->has("peer"))
        << line;
    ids.insert(o->getValue<std::string>("requestId"));
    sawTrace |= o->optValue<std::string>("requestId", "") == "trace-7f3a.1";
    if (o->optValue<std::string>("activityType", "") == "ACTIVITY_TYPE_OTP_LOGIN_V2") {
      sawLogin = true;
      EXPECT_EQ(o->getValue<std::string>("organizationId"), sub.id);
      EXPECT_EQ(o->getValue<std::string>("activityStatus"), "ACTIVITY_STATUS_COMPLETED");
    }
    for (const std::string& secret :
         {code, token, jwt, toHex(session.privateKey.bytes()), std::string("body-marker-5b1e"),
          std::string("X-Stamp"), std::string("signature")})
      EXPECT_EQ(line.find(secret), std::string::npos) << "the log holds " << secret << ": " << line;
  }
  EXPECT_TRUE(sawTrace);
  EXPECT_TRUE(sawLogin);
  EXPECT_EQ(ids.size(), lines.size());  // one id a request
}

}  // namespace
}  // namespace signet::test
