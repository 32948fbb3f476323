// HPKE (RFC 9180) in base mode with the one suite the coordinator API's clients use:
// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, single shot (the first nonce).
// Turnkey's conventions on top of it (info, AAD, bundle encodings) are in bundles.hpp.
#pragma once

#include <optional>

#include "signet/crypto.hpp"

namespace signet::hpke {

struct Sealed {
  Bytes encappedPublic;  // the sender's ephemeral key, 65-byte uncompressed
  Bytes ciphertext;      // with the 16-byte GCM tag
};

// Seals to `receiverPublic` (any SEC1 encoding) with a fresh ephemeral key. `aad` may depend
// on the ephemeral key, so it is computed from it by `aadFor`.
using AadFor = Bytes (*)(const Bytes& encappedPublic, const Bytes& receiverPublic);
Sealed seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size, const Bytes& info,
            AadFor aadFor);
// The same with a given ephemeral private key (tests reproduce vectors with it).
Sealed sealWithEphemeral(const crypto::SecretBytes& ephemeral, const Bytes& receiverPublic,
                         const uint8_t* plaintext, size_t size, const Bytes& info, AadFor aadFor);
// nullopt when the key, the encapsulation or the tag does not check out.
std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const Bytes& encappedPublic, const Bytes& ciphertext,
                                        const Bytes& info, AadFor aadFor);

// RFC 9180 §7.1.3 DeriveKeyPair for P-256: the private scalar derived from `ikm`.
crypto::SecretBytes deriveKeyPair(const Bytes& ikm);

}  // namespace signet::hpke
