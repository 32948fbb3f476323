// The suite-wide log check (support/secret_witness.hpp) is not vacuous: this test runs itself
// in a child process that logs a witnessed secret at information level, and that child must
// fail, naming the secret's kind and the line.
#include <Poco/Logger.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>

#include "support/secret_witness.hpp"

namespace signet::test {
namespace {

TEST(SecretWitnessTest, ALoggedSecretFailsTheTest) {
  const std::string planted = "5ec7e7-planted-in-a-log-line-0042";
  if (std::getenv("SIGNET_WITNESS_PLANT")) {  // the child
    witnessSecret("planted secret", planted);
    Poco::Logger::get("signet.http").information("a request that carried " + planted);
    return;
  }
  Poco::Pipe out;
  auto child = Poco::Process::launch("/proc/self/exe",
                                     {"--gtest_filter=SecretWitnessTest.ALoggedSecretFailsTheTest"},
                                     {}, nullptr, &out, &out, {{"SIGNET_WITNESS_PLANT", "1"}});
  Poco::PipeInputStream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(child.wait(), 0) << text;
  EXPECT_NE(
      text.find("a log line holds a secret (planted secret): a request that carried " + planted),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace signet::test
