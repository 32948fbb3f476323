// Internal: Ed25519 primitives behind signet/crypto.hpp.
#pragma once
#include "signet/crypto.hpp"

namespace signet::crypto::ed25519 {
bool isValidPoint(const Bytes& pub);
bool verify(const Bytes& pub, const uint8_t* msg, size_t size, const Bytes& sig);
Bytes publicKey(const SecretBytes& seed);
Bytes sign(const SecretBytes& seed, const uint8_t* msg, size_t size);
}  // namespace signet::crypto::ed25519
