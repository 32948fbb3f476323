// The plugin in a real gateway: the signet installed with the SDK is initialised with this
// build's plugin directory, serves on a free loopback port, and is driven over HTTP with the
// SDK's client: the activity, the query, bad input, and a policy over the plugin's facts.
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "signet/client.hpp"
#include "signet/encoding.hpp"

namespace {

namespace fs = std::filesystem;
using namespace signet;

int run(const std::vector<std::string>& args, std::string* out = nullptr) {
  Poco::Pipe outPipe;
  auto handle = Poco::Process::launch(SIGNET_EXECUTABLE, args, nullptr, &outPipe, nullptr);
  Poco::PipeInputStream in(outPipe);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (out) *out = text;
  return handle.wait();
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A data directory whose config enables only this plugin, from this build's plugin directory.
class Gateway {
 public:
  Gateway() {
    fs::create_directories(dir_);
    std::ofstream(dir_ / "signet.json")
        << R"({"plugins": {"directory": ")" << HELLO_PLUGIN_DIR << R"(", "enabled": ["hello"]}})";
    EXPECT_EQ(run({"init", "--data-dir", dir_.string()}), 0);
    std::string out;
    EXPECT_EQ(run({"org", "create", "--data-dir", dir_.string(), "--name", "Hello", "--user-name",
                   "root"},
                  &out),
              0);
    organizationId_ = json::parseObject(out, "org create")->getValue<std::string>("organizationId");
    auto credentials =
        json::parseObject(readFile(dir_ / (organizationId_ + ".api-key.json")), "credentials file");
    rootKey_ = credentials->getValue<std::string>("apiPrivateKey");

    server_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
        SIGNET_EXECUTABLE, {"serve", "--data-dir", dir_.string(), "--listen", "127.0.0.1:0"},
        nullptr, &serverOut_, nullptr));
    Poco::PipeInputStream in(serverOut_);
    std::string line;
    std::getline(in, line);  // "signet listening on http://127.0.0.1:PORT"
    baseUrl_ = line.substr(line.find("http://"));
  }
  ~Gateway() {
    Poco::Process::requestTermination(server_->id());
    server_->wait();
    fs::remove_all(dir_);
  }
  Client root() const { return Client(baseUrl_, ApiKeyStamper::fromHex(rootKey_)); }
  Client as(std::shared_ptr<Stamper> stamper) const { return Client(baseUrl_, stamper); }
  const std::string& organizationId() const { return organizationId_; }

 private:
  fs::path dir_ = fs::temp_directory_path() / ("hello-plugin-" + crypto::uuidV4());
  std::string organizationId_, rootKey_, baseUrl_;
  Poco::Pipe serverOut_;
  std::unique_ptr<Poco::ProcessHandle> server_;
};

json::Object named(const std::string& name) {
  json::Object p = json::object();
  p->set("name", name);
  return p;
}

json::Object greet(const Client& client, const std::string& org, const std::string& name) {
  return client.submit("hello_greet", "ACTIVITY_TYPE_HELLO_GREET", org, named(name));
}

size_t greetingCount(const Gateway& gw) {
  json::Object q = json::object();
  q->set("organizationId", gw.organizationId());
  return gw.root().query("hello_list_greetings", q)->getArray("greetings")->size();
}

// A user with a P-256 API key of their own, whom policies govern (the root quorum bypasses them).
std::shared_ptr<ApiKeyStamper> createUser(const Gateway& gw, const std::string& name) {
  auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
  json::Object key = json::object();
  key->set("apiKeyName", name + " key");
  key->set("publicKey", pub);
  key->set("curveType", "API_KEY_CURVE_P256");
  json::Array keys = json::array();
  keys->add(key);
  json::Object user = json::object();
  user->set("userName", name);
  user->set("apiKeys", keys);
  user->set("authenticators", json::array());
  user->set("oauthProviders", json::array());
  user->set("userTags", json::array());
  json::Array users = json::array();
  users->add(user);
  json::Object params = json::object();
  params->set("users", users);
  auto a = gw.root().submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", gw.organizationId(),
                            params);
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  return std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256);
}

TEST(HelloPluginInAGateway, GreetsListsRefusesBadInputAndAnswersToPolicies) {
  Gateway gw;
  auto a = greet(gw.root(), gw.organizationId(), "Ada");
  ASSERT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(
      a->getObject("result")->getObject("helloGreetResult")->getValue<std::string>("greeting"),
      "Hello, Ada!");
  EXPECT_EQ(greetingCount(gw), 1u);

  try {  // bad input: a 400 naming the field, and nothing stored
    greet(gw.root(), gw.organizationId(), "");
    ADD_FAILURE() << "an empty name was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 400);
    EXPECT_NE(std::string(e.what()).find("parameters.name"), std::string::npos) << e.what();
  }
  EXPECT_EQ(greetingCount(gw), 1u);

  // A policy over the plugin's facts: short names only.
  auto greeter = createUser(gw, "greeter");
  json::Object policy = json::object();
  policy->set("policyName", "short names");
  policy->set("effect", "EFFECT_ALLOW");
  policy->set("condition",
              "activity.type == 'ACTIVITY_TYPE_HELLO_GREET' && hello.name_length <= 5");
  policy->set("notes", "");
  EXPECT_EQ(
      gw.root()
          .submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", gw.organizationId(), policy)
          ->getValue<std::string>("status"),
      "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(greet(gw.as(greeter), gw.organizationId(), "Bob")->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(
      greet(gw.as(greeter), gw.organizationId(), "Bartholomew")->getValue<std::string>("status"),
      "ACTIVITY_STATUS_FAILED");
  EXPECT_EQ(greetingCount(gw), 2u);
}

}  // namespace
