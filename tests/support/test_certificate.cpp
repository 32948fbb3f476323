#include "support/test_certificate.hpp"

#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace signet::test {

namespace {
void openssl(const std::vector<std::string>& args) {
  Poco::Pipe outPipe;
  auto handle = Poco::Process::launch("openssl", args, nullptr, &outPipe, &outPipe);
  Poco::PipeInputStream drain(outPipe);
  std::string output((std::istreambuf_iterator<char>(drain)), std::istreambuf_iterator<char>());
  if (handle.wait() != 0)
    throw std::runtime_error("openssl " + args.front() + " failed: " + output);
}

const std::vector<std::string> kP256 = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                        "-nodes"};
}  // namespace

void makeSelfSignedCertificate(const std::filesystem::path& cert,
                               const std::filesystem::path& key) {
  std::vector<std::string> args{"req", "-x509"};
  args.insert(args.end(), kP256.begin(), kP256.end());
  args.insert(args.end(),
              {"-keyout", key.string(), "-out", cert.string(), "-days", "1", "-subj",
               "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"});
  openssl(args);
}

TestCa makeTestCa(const std::filesystem::path& dir) {
  TestCa ca{dir / "ca.pem", dir / "ca.key"};
  std::vector<std::string> args{"req", "-x509"};
  args.insert(args.end(), kP256.begin(), kP256.end());
  args.insert(args.end(),
              {"-keyout", ca.key.string(), "-out", ca.cert.string(), "-days", "1", "-subj",
               "/CN=Signet test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
               "keyUsage=critical,keyCertSign,cRLSign"});
  openssl(args);
  return ca;
}

void makeServerCertificate(const TestCa& ca, const std::string& commonName,
                           const std::filesystem::path& cert, const std::filesystem::path& key) {
  auto request = cert.string() + ".csr";
  auto extensions = cert.string() + ".ext";
  std::vector<std::string> args{"req"};
  args.insert(args.end(), kP256.begin(), kP256.end());
  args.insert(args.end(), {"-keyout", key.string(), "-out", request, "-subj", "/CN=" + commonName});
  openssl(args);
  std::ofstream(extensions) << "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                               "extendedKeyUsage=serverAuth\n";
  openssl({"x509", "-req", "-in", request, "-CA", ca.cert.string(), "-CAkey", ca.key.string(),
           "-CAcreateserial", "-out", cert.string(), "-days", "1", "-extfile", extensions});
  std::filesystem::remove(request);
  std::filesystem::remove(extensions);
}

}  // namespace signet::test
