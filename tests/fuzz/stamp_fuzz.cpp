// Fuzz target: the stamp headers, which the gateway parses before it knows who is asking. The
// first byte picks the header: X-Stamp (verified over the body), X-Stamp-WebAuthn,
// X-Stamp-Attested (verified over the body) or the API-key stamp decoder alone; the header is
// what precedes the first NUL, the body what follows it.
#include "auth/attested_stamp.hpp"
#include "auth/stamp_check.hpp"
#include "auth/webauthn.hpp"
#include "fuzz_input.hpp"
#include "signet/stamp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto parts = fuzz::splitAtNul(data + 1, size - 1);
  const std::string& header = parts.first;  // captured below: no structured binding (clang 14)
  const std::string& body = parts.second;
  fuzz::refusesWithErrorOnly([&, which = data[0] % 4] {
    switch (which) {
      case 0:
        signet::verifyApiKeyStamp(header, body);
        break;
      case 1:
        signet::parseWebAuthnStamp(header);
        signet::webauthnChallenge(body);
        break;
      case 2:
        signet::verifyAttestedStamp(header, body);
        break;
      default: {
        std::string error;
        signet::stamp::decodeHeader(header, error);
        break;
      }
    }
  });
  return 0;
}
