// ECIES over secp256k1 in the format of the Rust `ecies` crate, which Spark's operators and
// SDK (`sparkFrost.encryptEcies`) use: ephemeral public key (65 bytes, uncompressed) ‖ nonce
// (16) ‖ AES-256-GCM tag (16) ‖ ciphertext, the key being HKDF-SHA256 (no salt, no info) of
// the ephemeral public key ‖ the uncompressed shared point.
#pragma once

#include <optional>

#include "signet/crypto.hpp"

namespace signing {

// Encrypts to `recipientPublic` (any SEC1 encoding); std::invalid_argument for a bad key.
signet::Bytes eciesEncrypt(const signet::Bytes& recipientPublic, const uint8_t* data, size_t size);
// nullopt when the bytes are not a ciphertext for this key.
std::optional<signet::crypto::SecretBytes> eciesDecrypt(const signet::crypto::SecretBytes& priv,
                                                        const signet::Bytes& sealed);

}  // namespace signing
