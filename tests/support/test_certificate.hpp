// A self-signed P-256 certificate for localhost and 127.0.0.1, valid for a day, made with the
// openssl tool: what the TLS peers of the tests (SMTP, an OIDC issuer) present.
#pragma once

#include <filesystem>

namespace signet::test {

void makeSelfSignedCertificate(const std::filesystem::path& cert, const std::filesystem::path& key);

}  // namespace signet::test
