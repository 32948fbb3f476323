// signet serve --tls-cert/--tls-key: HTTPS on the main listener, TLS 1.2 or newer (AEAD suites
// only under 1.2), checked by a
// client that trusts only a test CA; a stamped request over it; a plain-HTTP client gets
// nothing; SIGHUP serves a renewed certificate to new connections without a restart, and a
// broken file on SIGHUP keeps the current one.
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/X509Certificate.h>

#include <fstream>
#include <thread>

#include "support/signet_cli.hpp"
#include "support/test_certificate.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

uint16_t portOf(const std::string& url) {
  return static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

// A client context that trusts `ca` alone and checks the host name.
Poco::Net::Context::Ptr clientContext(const std::string& ca) {
  return new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", ca,
                                Poco::Net::Context::VERIFY_STRICT, 9, false);
}

// The subject's common name of the certificate the server presents on a new connection.
std::string servedCommonName(uint16_t port, const Poco::Net::Context::Ptr& ctx) {
  Poco::Net::SecureStreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port), "127.0.0.1",
                                       ctx);
  return socket.peerCertificate().commonName();
}

std::pair<int, std::string> get(uint16_t port, const Poco::Net::Context::Ptr& ctx,
                                const std::string& path) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", port, ctx);
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {response.getStatus(), body};
}

TEST(TlsTest, ServesHttpsAndReloadsItsCertificateOnSighup) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-tls-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  auto ca = makeTestCa(dir);
  makeServerCertificate(ca, "signet-first", dir / "server.pem", dir / "server.key");
  ASSERT_EQ(
      runSignet({"init", "--data-dir", (dir / "data").string(), "--plugins", "memo"}).exitCode, 0);
  const auto org = createOrganizationWithCli((dir / "data").string());

  ServeProcess serve((dir / "data").string(), {"--tls-cert", (dir / "server.pem").string(),
                                               "--tls-key", (dir / "server.key").string()});
  ASSERT_EQ(serve.baseUrl().rfind("https://127.0.0.1:", 0), 0u) << serve.baseUrl();
  uint16_t port = portOf(serve.baseUrl());
  auto ctx = clientContext(ca.cert.string());

  auto [status, body] = get(port, ctx, "/healthz");
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("\"ok\""), std::string::npos);
  EXPECT_EQ(servedCommonName(port, ctx), "signet-first");
  // The config sets no publicUrl: the issuer is where it serves, over HTTPS.
  auto discovery = json::parseObject(get(port, ctx, "/.well-known/openid-configuration").second,
                                     "openid-configuration");
  EXPECT_EQ(discovery->getValue<std::string>("issuer"), serve.baseUrl());

  // A stamped API request over TLS, with the credentials file org create wrote.
  const std::string& orgId = org.organizationId;
  auto stamper = ApiKeyStamper::fromHex(org.apiPrivateKey);
  std::string whoamiBody = json::stringify(orgBody(orgId));
  Poco::Net::HTTPSClientSession session("127.0.0.1", port, ctx);
  Poco::Net::HTTPRequest post(Poco::Net::HTTPRequest::HTTP_POST, "/public/v1/query/whoami",
                              Poco::Net::HTTPMessage::HTTP_1_1);
  post.setContentType("application/json");
  post.setContentLength(static_cast<std::streamsize>(whoamiBody.size()));
  auto [stampName, stampValue] = stamper->stamp(whoamiBody);
  post.set(stampName, stampValue);
  session.sendRequest(post) << whoamiBody;
  Poco::Net::HTTPResponse whoami;
  std::istream& whoamiIn = session.receiveResponse(whoami);
  std::string whoamiText((std::istreambuf_iterator<char>(whoamiIn)),
                         std::istreambuf_iterator<char>());
  EXPECT_EQ(whoami.getStatus(), 200) << whoamiText;
  EXPECT_NE(whoamiText.find(orgId), std::string::npos) << whoamiText;

  // Plain HTTP to the TLS port: no answer a client could take for the API's.
  {
    Poco::Net::StreamSocket plain(Poco::Net::SocketAddress("127.0.0.1", port));
    plain.setReceiveTimeout(Poco::Timespan(5, 0));
    std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    plain.sendBytes(request.data(), static_cast<int>(request.size()));
    char buf[256];
    int n = 0;
    try {
      n = plain.receiveBytes(buf, sizeof buf);
    } catch (const Poco::Exception&) {
      n = 0;  // reset
    }
    EXPECT_EQ(std::string(buf, std::max(n, 0)).find("HTTP/1.1 200"), std::string::npos);
  }
  // A client that offers TLS 1.1 at most is refused.
  {
    Poco::Net::Context::Ptr old =
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", ca.cert.string(),
                               Poco::Net::Context::VERIFY_STRICT, 9, false, "DEFAULT:@SECLEVEL=0");
    old->disableProtocols(Poco::Net::Context::PROTO_TLSV1_2 | Poco::Net::Context::PROTO_TLSV1_3);
    EXPECT_ANY_THROW(servedCommonName(port, old));
  }
  // Under TLS 1.2, only AEAD suites: a client offering CBC suites alone is refused, one offering
  // an ECDHE suite with AES-GCM or ChaCha20-Poly1305 is served.
  auto tls12With = [&](const std::string& ciphers) {
    Poco::Net::Context::Ptr c =
        new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, "", "", ca.cert.string(),
                               Poco::Net::Context::VERIFY_STRICT, 9, false, ciphers);
    c->disableProtocols(Poco::Net::Context::PROTO_TLSV1_3);
    return c;
  };
  try {
    servedCommonName(port, tls12With("ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384"));
    ADD_FAILURE() << "a client offering CBC suites alone was served";
  } catch (const Poco::Exception& e) {
    EXPECT_NE(e.displayText().find("handshake failure"), std::string::npos) << e.displayText();
  }
  EXPECT_EQ(servedCommonName(port, tls12With("ECDHE-ECDSA-AES128-GCM-SHA256")), "signet-first");
  EXPECT_EQ(servedCommonName(port, tls12With("ECDHE-ECDSA-CHACHA20-POLY1305")), "signet-first");

  // A renewed certificate in place of the files, then SIGHUP: new connections get it.
  makeServerCertificate(ca, "signet-renewed", dir / "server.pem", dir / "server.key");
  serve.hangUp();
  EXPECT_TRUE(eventually(
      [port, ctx]() -> bool { return servedCommonName(port, ctx) == "signet-renewed"; }));
  // A broken file on SIGHUP: the renewed one is still served, and requests still work.
  std::ofstream(dir / "server.pem") << "not a certificate\n";
  serve.hangUp();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(servedCommonName(port, ctx), "signet-renewed");
  EXPECT_EQ(get(port, ctx, "/healthz").first, 200);
  EXPECT_EQ(serve.stop(), 0);
  std::filesystem::remove_all(dir);
}

TEST(TlsTest, AWrongFileStopsStartUpNamingIt) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-tls-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  auto ca = makeTestCa(dir);
  makeServerCertificate(ca, "one", dir / "one.pem", dir / "one.key");
  makeServerCertificate(ca, "two", dir / "two.pem", dir / "two.key");
  ASSERT_EQ(
      runSignet({"init", "--data-dir", (dir / "data").string(), "--plugins", "memo"}).exitCode, 0);
  auto missing =
      runSignet({"serve", "--data-dir", (dir / "data").string(), "--tls-cert",
                 (dir / "absent.pem").string(), "--tls-key", (dir / "one.key").string()});
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("absent.pem"), std::string::npos) << missing.err;
  auto mismatched =
      runSignet({"serve", "--data-dir", (dir / "data").string(), "--tls-cert",
                 (dir / "one.pem").string(), "--tls-key", (dir / "two.key").string()});
  EXPECT_NE(mismatched.exitCode, 0);
  EXPECT_NE(mismatched.err.find("does not belong to the certificate"), std::string::npos)
      << mismatched.err;
  auto half = runSignet(
      {"serve", "--data-dir", (dir / "data").string(), "--tls-cert", (dir / "one.pem").string()});
  EXPECT_NE(half.exitCode, 0);
  EXPECT_NE(half.err.find("--tls-key"), std::string::npos) << half.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
