#include "support/signet_cli.hpp"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <iterator>

#ifndef SIGNET_BINARY
#error "SIGNET_BINARY must name the signet executable"
#endif

namespace signet::test {

CliRun runSignet(const std::vector<std::string>& args) {
  Poco::Pipe outPipe, errPipe;
  auto handle = Poco::Process::launch(SIGNET_BINARY, args, nullptr, &outPipe, &errPipe);
  Poco::PipeInputStream out(outPipe), err(errPipe);
  // Small outputs: reading one pipe to its end before the other cannot fill the second.
  std::string o((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  std::string e((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  return {handle.wait(), o, e};
}

}  // namespace signet::test
