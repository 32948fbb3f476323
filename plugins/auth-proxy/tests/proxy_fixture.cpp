#include "proxy_fixture.hpp"

#include "signet/encoding.hpp"

#include <algorithm>
#include <cctype>

namespace signet::test {

HttpResponse ProxyClient::send(const std::string& path, const std::string& body,
                               std::optional<std::string> configHeader) const {
  Client client(url_, nullptr);
  std::vector<std::pair<std::string, std::string>> headers;
  if (configHeader) headers.emplace_back(*configHeader, configId_);
  if (origin_) headers.emplace_back("Origin", *origin_);
  return client.post(path, body, headers);
}

json::Object ProxyClient::ok(const std::string& path, const json::Object& body) const {
  auto r = send(path, json::stringify(body));
  EXPECT_EQ(r.status, 200) << path << ": " << r.body;
  if (r.status != 200) return json::object();
  return json::parseObject(r.body, "proxy answer");
}

ProxyClient::Refusal ProxyClient::refused(const std::string& path, const json::Object& body) const {
  auto r = send(path, json::stringify(body));
  EXPECT_NE(r.status, 200) << path << " was served: " << r.body;
  Refusal out;
  out.status = r.status;
  try {
    auto o = json::parseObject(r.body, "proxy error");
    out.code = o->getValue<int>("code");
    out.message = o->getValue<std::string>("message");
    EXPECT_TRUE(o->has("details")) << r.body;
  } catch (const std::exception&) {
    ADD_FAILURE() << "not a {code, message, details} body: " << r.body;
  }
  return out;
}

std::string headerOf(const HttpResponse& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (asciiLower(n) == asciiLower(name)) return v;
  return "";
}

std::pair<std::string, std::string> enableProxy(TestGateway& gw) {
  auto r = resultOf(gw.rootClient().submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY",
                                           gw.root().organizationId, json::object()),
                    "enableAuthProxyResult");
  return {r->getValue<std::string>("configId"), r->getValue<std::string>("userId")};
}

json::Object configureProxy(TestGateway& gw, const std::string& settingsJson) {
  return gw.rootClient().submit("update_auth_proxy_config",
                                "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", gw.root().organizationId,
                                json::parseObject(settingsJson, "test settings"));
}

std::map<std::string, json::Object> proxySettings(const std::string& sessions,
                                                  const std::string& proxy) {
  auto p = json::parseObject(proxy, "proxy settings");
  if (!p->has("listen")) p->set("listen", "127.0.0.1:0");
  return {{"sessions", json::parseObject(sessions, "sessions settings")}, {"auth-proxy", p}};
}

}  // namespace signet::test
