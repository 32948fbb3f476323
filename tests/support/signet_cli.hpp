// The signet binary as an operator runs it: its exit code and what it printed.
#pragma once

#include <string>
#include <vector>

namespace signet::test {

struct CliRun {
  int exitCode;
  std::string out;
  std::string err;
};

CliRun runSignet(const std::vector<std::string>& args);

}  // namespace signet::test
