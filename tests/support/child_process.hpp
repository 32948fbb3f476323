// Ending a helper process a test started (the SMTP sink, the Solana node): each exits when its
// standard input closes.
#pragma once

#include <Poco/Pipe.h>
#include <Poco/Process.h>

namespace signet::test {

// Closes the child's stdin and reaps it, within 5 s; past that it is killed.
void endChild(Poco::Pipe& stdinPipe, Poco::ProcessHandle& process);

}  // namespace signet::test
