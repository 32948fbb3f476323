// The operator console's server side: its files are served from the binary at /console/ with a
// strict Content-Security-Policy and validators, none of its pages carries inline script, and
// the two queries it reads beyond the public API's own (signet_get_gateway_status, and the
// sessions plugin's signet_preview_otp_message) answer what the panels show. The page itself is
// driven in chromium by tests/conformance/console.test.mjs.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/URI.h>

#include <regex>

#include "activity/rollout.hpp"
#include "server/console_assets.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
};

Reply get(const std::string& baseUrl, const std::string& path,
          const std::string& ifNoneMatch = "") {
  Poco::URI uri(baseUrl);
  Poco::Net::HTTPClientSession session(uri.getHost(), uri.getPort());
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  if (!ifNoneMatch.empty()) request.set("If-None-Match", ifNoneMatch);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  Reply r;
  r.status = response.getStatus();
  for (const auto& [name, value] : response) r.headers[Poco::toLower(name)] = value;
  r.body.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

TEST(ConsoleFilesTest, NoPageCarriesInlineScriptOrHandlers) {
  ASSERT_TRUE(consoleFiles().count("index.html"));
  ASSERT_TRUE(consoleFiles().count("js/app.js"));
  const std::regex inlineScript(R"(<script(?![^>]*\bsrc=)[^>]*>)", std::regex::icase);
  const std::regex handler(R"(<[^>]+\son[a-z]+\s*=)", std::regex::icase);
  const std::regex styleAttribute(R"(<[^>]+\sstyle\s*=)", std::regex::icase);
  for (const auto& [name, bytes] : consoleFiles()) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".html") continue;
    std::string text(bytes);
    EXPECT_FALSE(std::regex_search(text, inlineScript)) << name;
    EXPECT_FALSE(std::regex_search(text, handler)) << name;
    EXPECT_FALSE(std::regex_search(text, styleAttribute)) << name;
  }
}

class ConsoleTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ConsoleTest);

TEST_P(ConsoleTest, FilesAreServedWithAStrictPolicyAndValidators) {
  TestGateway gw(GetParam());
  Reply page = get(gw.baseUrl(), "/console/");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.headers["content-type"], "text/html; charset=utf-8");
  EXPECT_EQ(page.headers["content-security-policy"], kConsoleContentSecurityPolicy);
  EXPECT_NE(page.headers["content-security-policy"].find("script-src 'self';"), std::string::npos);
  EXPECT_EQ(page.headers["content-security-policy"].find("unsafe"), std::string::npos);
  EXPECT_EQ(page.headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(page.headers["x-frame-options"], "DENY");
  EXPECT_EQ(page.headers["referrer-policy"], "no-referrer");
  EXPECT_EQ(page.headers.count("access-control-allow-origin"), 0u);  // no other origin reads it
  EXPECT_EQ(page.body, std::string(consoleFiles().at("index.html")));

  Reply script = get(gw.baseUrl(), "/console/js/app.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.headers["content-type"], "text/javascript; charset=utf-8");
  // Revalidation: the same file answers 304 with no body; another file's tag does not match.
  Reply again = get(gw.baseUrl(), "/console/js/app.js", script.headers["etag"]);
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(get(gw.baseUrl(), "/console/js/app.js", page.headers["etag"]).status, 200);

  Reply bare = get(gw.baseUrl(), "/console");
  EXPECT_EQ(bare.status, 308);
  EXPECT_EQ(bare.headers["location"], "/console/");
  Reply missing = get(gw.baseUrl(), "/console/js/nothing.js");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("the console has no such file"), std::string::npos);
  EXPECT_EQ(get(gw.baseUrl(), "/console/../signet.json").status, 404);
}

TEST_P(ConsoleTest, GatewayStatusListsPluginsAndTheRolloutAsItStandsForTheOrganization) {
  TestGateway gw(GetParam(), {"memo"});
  auto status = [&] {
    return gw.rootClient().query("signet_get_gateway_status", orgBody(gw.root().organizationId));
  };
  json::Object s = status();
  EXPECT_TRUE(s->getValue<bool>("storeUp"));
  EXPECT_EQ(s->getValue<std::string>("organizationCount"), "1");
  std::set<std::string> names;
  for (const auto& p : *s->getArray("plugins"))
    names.insert(p.extract<json::Object>()->getValue<std::string>("name"));
  EXPECT_EQ(names, (std::set<std::string>{"core", "memo"}));

  // memo's V2 ships as a canary at 0 %: refused to this organization until the operator lists it.
  auto memoV2 = [&](const json::Object& st) {
    for (const auto& r : *st->getArray("rollouts")) {
      auto o = r.extract<json::Object>();
      if (o->getValue<std::string>("activityType") == "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2")
        return o;
    }
    return json::Object();
  };
  json::Object v2 = memoV2(s);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->getValue<std::string>("state"), "canary");
  EXPECT_EQ(v2->getValue<int>("percent"), 0);
  EXPECT_FALSE(v2->getValue<bool>("admitsThisOrganization"));
  EXPECT_FALSE(v2->getValue<bool>("setByOperator"));
  EXPECT_EQ(s->getArray("rollouts")->size(), 1u);  // every other type is general

  gw.write([&](Db& db) {
    RolloutAssignment a;
    a.state = RolloutState::kCanary;
    a.organizations = {gw.root().organizationId};
    a.byOperator = true;
    storeRollout(db, "ACTIVITY_TYPE_SIGNET_CREATE_MEMO_V2", a, gw.gateway().nowMs());
  });
  v2 = memoV2(status());
  ASSERT_TRUE(v2);
  EXPECT_TRUE(v2->getValue<bool>("admitsThisOrganization"));
  EXPECT_TRUE(v2->getValue<bool>("setByOperator"));
}

TEST_P(ConsoleTest, OtpMessagePreviewIsRenderedByTheSendingTemplates) {
  TestGateway gw(GetParam(), {"sessions"});
  auto preview = [&](const std::string& extra) {
    return gw.rootClient().query(
        "signet_preview_otp_message",
        json::parseObject(R"({"organizationId":")" + gw.root().organizationId + "\"" + extra + "}",
                          "test"));
  };
  json::Object p = preview(
      R"(,"appName":"Acme","otpLength":6,"alphanumeric":false,)"
      R"("smsCustomization":{"template":"{{.AppName}}: {{.OtpCode}}"},)"
      R"("emailCustomization":{"logoUrl":"https://acme.example/logo.png"},"expirationSeconds":120)");
  EXPECT_EQ(p->getValue<std::string>("sampleCode"), "123456");
  EXPECT_EQ(p->getObject("sms")->getValue<std::string>("text"), "Acme: 123456");
  auto email = p->getObject("email");
  EXPECT_EQ(email->getValue<std::string>("subject"), "Acme verification code");
  EXPECT_NE(email->getValue<std::string>("text").find("Your Acme verification code is: 123456"),
            std::string::npos);
  EXPECT_NE(email->getValue<std::string>("text").find("expires in 2 minutes"), std::string::npos);
  EXPECT_NE(email->getValue<std::string>("html").find("src=\"https://acme.example/logo.png\""),
            std::string::npos);

  // Alphanumeric nine by default; a bad field is refused naming it, as init_otp refuses it.
  EXPECT_EQ(preview("")->getValue<std::string>("sampleCode"), "A1B2C3D4E");
  try {
    preview(R"(,"emailCustomization":{"logoUrl":"ftp://acme.example/logo.png"})");
    ADD_FAILURE() << "a non-http logo URL was previewed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("emailCustomization.logoUrl"), std::string::npos)
        << e.what();
  }
  try {
    preview(R"(,"otpLength":12)");
    ADD_FAILURE() << "a 12-character code was previewed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("otpLength"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace signet::test
