// The suite-wide check that no secret reaches a log. Every test program of the suite captures
// every log line the gateways in it write, at information level (the request log included),
// and the test helpers record each secret they create or receive: API and session private keys,
// master keys, the gateway signer's key, verification tokens, session JWTs, mnemonics and
// exported keys. When the program's tests are done (ctest runs one a process) the captured lines
// are searched for every recorded secret; a hit fails the program, naming the secret's kind and
// the line.
//
// Warnings and errors still reach the console as before; information lines are only captured.
#pragma once

#include <string>

namespace signet::test {

// Records a secret (as text: hex, a token, a phrase). Shorter than 16 characters is ignored:
// an OTP code's six digits also occur in durations and counts, and would be found by chance.
void witnessSecret(const std::string& kind, const std::string& secret);

}  // namespace signet::test
