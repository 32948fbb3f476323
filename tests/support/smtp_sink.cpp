#include "support/smtp_sink.hpp"

#include "support/child_process.hpp"
#include "support/test_certificate.hpp"

#include <Poco/PipeStream.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace signet::test {

SmtpSink::SmtpSink(const std::filesystem::path& dir, SmtpSinkOptions options) : dir_(dir) {
  std::filesystem::create_directories(dir_ / "mail");
  std::vector<std::string> args{SIGNET_TEST_SOURCE_DIR "/support/smtp_sink.py", "--dir",
                                (dir_ / "mail").string()};
  if (options.startTls) {
    cert_ = dir_ / "cert.pem";
    makeSelfSignedCertificate(cert_, dir_ / "key.pem");
    args.insert(args.end(), {"--cert", cert_.string(), "--key", (dir_ / "key.pem").string()});
  }
  if (!options.user.empty())
    args.insert(args.end(), {"--user", options.user, "--password", options.password});
  if (options.rejectRecipients) args.push_back("--reject-rcpt");
  in_ = std::make_unique<Poco::Pipe>();
  out_ = std::make_unique<Poco::Pipe>();
  // Debian's interpreter, where python3-aiosmtpd is installed (not a pyenv shim on PATH).
  process_ = std::make_unique<Poco::ProcessHandle>(
      Poco::Process::launch("/usr/bin/python3", args, in_.get(), out_.get(), nullptr));
  Poco::PipeInputStream from(*out_);
  std::string word;
  from >> word >> port_;
  if (word != "port" || port_ <= 0) throw std::runtime_error("smtp_sink.py did not start");
}

SmtpSink::~SmtpSink() {
  endChild(*in_, *process_);
}

std::vector<std::string> SmtpSink::messages() const {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "mail"))
    if (e.path().extension() == ".eml") files.push_back(e.path());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::stoi(a.stem().string()) < std::stoi(b.stem().string());
  });
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

std::vector<std::string> SmtpSink::waitForMessages(size_t count) const {
  for (int i = 0; i < 100; ++i) {
    auto all = messages();
    if (all.size() >= count) return all;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return messages();
}

}  // namespace signet::test
