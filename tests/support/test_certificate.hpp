// Certificates for the tests' TLS peers, made with the openssl tool: P-256 keys, valid for a
// day, for localhost and 127.0.0.1.
#pragma once

#include <filesystem>
#include <string>

namespace signet::test {

// Self-signed: what the TLS peers of the tests (SMTP, an OIDC issuer) present.
void makeSelfSignedCertificate(const std::filesystem::path& cert, const std::filesystem::path& key);

// A test certificate authority (its certificate and key), and server certificates it signs:
// what a client that trusts only the CA checks the gateway's TLS against.
struct TestCa {
  std::filesystem::path cert;
  std::filesystem::path key;
};
TestCa makeTestCa(const std::filesystem::path& dir);
// A server certificate for 127.0.0.1 and localhost signed by `ca`, with `commonName` as its
// subject so that a test can tell two apart.
void makeServerCertificate(const TestCa& ca, const std::string& commonName,
                           const std::filesystem::path& cert, const std::filesystem::path& key);

}  // namespace signet::test
