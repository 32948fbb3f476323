// The TLS 1.2 cipher suites Signet offers and accepts, as server and as client: ECDHE key
// exchange with AES-GCM or ChaCha20-Poly1305 only (the "intermediate" list of Mozilla's server
// side TLS guidelines). CBC suites, which padding-oracle attacks (Lucky Thirteen) have a long
// history against, are not offered. TLS 1.3 suites are all AEAD and are left as OpenSSL has them.
#pragma once

namespace signet {

inline constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

}  // namespace signet
