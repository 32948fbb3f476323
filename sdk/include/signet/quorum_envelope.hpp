// Messages encrypted to a P-256 "quorum key" as tkhq/qos does it (qos_p256 encrypt.rs; the
// browser side is @turnkey/crypto's encryptToEnclave, which encryptOauth2ClientSecret uses):
//   shared  = x-coordinate of ECDH(ephemeral, receiver)
//   key     = first 32 bytes of HMAC-SHA512(key = sender65 ‖ receiver65 ‖ shared,
//                                           message = "qos_encryption_hmac_message")
//   aad     = sender65 ‖ 0x41 ‖ receiver65 ‖ 0x41 (each key followed by its length byte)
//   output  = borsh {nonce [12], ephemeralSenderPublic [65], encryptedMessage: u32 LE length ‖
//             AES-256-GCM ciphertext ‖ tag}
#pragma once

#include <optional>

#include "signet/crypto.hpp"

namespace signet::quorum_envelope {

Bytes seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size);
// nullopt when the envelope is malformed or does not open under `receiverPrivate`.
std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const Bytes& envelope);

}  // namespace signet::quorum_envelope
