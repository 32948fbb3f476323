#include "support/child_process.hpp"

#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace signet::test {

void endChild(Poco::Pipe& stdinPipe, Poco::ProcessHandle& process) {
  stdinPipe.close(Poco::Pipe::CLOSE_WRITE);
  // Reap it ourselves: an exited child stays a zombie, which isRunning() counts as running.
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(process.id(), &status, WNOHANG) == process.id()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Poco::Process::kill(process);
  ::waitpid(process.id(), &status, 0);
}

}  // namespace signet::test
