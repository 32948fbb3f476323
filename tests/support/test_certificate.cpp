#include "support/test_certificate.hpp"

#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace signet::test {

void makeSelfSignedCertificate(const std::filesystem::path& cert,
                               const std::filesystem::path& key) {
  std::vector<std::string> args{"req",
                                "-x509",
                                "-newkey",
                                "ec",
                                "-pkeyopt",
                                "ec_paramgen_curve:prime256v1",
                                "-nodes",
                                "-keyout",
                                key.string(),
                                "-out",
                                cert.string(),
                                "-days",
                                "1",
                                "-subj",
                                "/CN=localhost",
                                "-addext",
                                "subjectAltName=DNS:localhost,IP:127.0.0.1"};
  Poco::Pipe outPipe;
  auto handle = Poco::Process::launch("openssl", args, nullptr, &outPipe, &outPipe);
  Poco::PipeInputStream drain(outPipe);
  std::string ignored((std::istreambuf_iterator<char>(drain)), std::istreambuf_iterator<char>());
  if (handle.wait() != 0) throw std::runtime_error("openssl req failed: " + ignored);
}

}  // namespace signet::test
