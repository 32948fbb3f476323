// Verifies the stamp of a request over its exact received bytes, before anything parses
// the body. API-key stamps carry their public key, so their signature is checked here with no
// store access; a WebAuthn stamp names a stored credential and is verified on resolution.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "signet/stamp.hpp"

namespace signet {

struct StampHeaders {
  std::optional<std::string> apiKey;    // X-Stamp
  std::optional<std::string> webauthn;  // X-Stamp-WebAuthn
  std::optional<std::string> attested;  // X-Stamp-Attested
  // Not a header: the request's client address (HttpRequestData::peer), which the IP
  // allowlists of the stamping key's organization are checked against.
  std::string client;
};

struct VerifiedApiKeyStamp {
  stamp::Scheme scheme;
  std::string publicKey;  // canonical hex: compressed EC point or 32-byte Ed25519 key
  std::string signature;  // hex, as sent
};

// Throws Unauthenticated (SIGNATURE_INVALID) naming what is wrong.
VerifiedApiKeyStamp verifyApiKeyStamp(const std::string& header, std::string_view body);

}  // namespace signet
