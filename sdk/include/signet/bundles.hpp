// The encrypted and signed bundles of the coordinator API (tkhq/sdk packages/crypto turnkey.ts,
// tkhq/rust-sdk enclave_encrypt): HPKE with info "turnkey_hpke" and AAD = encapsulated key ‖
// receiver key (both 65-byte uncompressed), credential bundles in Base58Check, `{encappedPublic,
// ciphertext}` JSON for import and OTP codes, and the envelope signed by the gateway signer that
// export, import and OTP target bundles travel in.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "signet/hpke.hpp"

namespace signet::bundles {

hpke::Sealed seal(const Bytes& receiverPublic, const uint8_t* plaintext, size_t size);
std::optional<crypto::SecretBytes> open(const crypto::SecretBytes& receiverPrivate,
                                        const hpke::Sealed& sealed);

// base58check(compressed encapsulated key [33] ‖ ciphertext): what session, OTP-auth and
// email-auth activities return, sealing a P-256 private key to the client's target key.
std::string credentialBundle(const Bytes& receiverPublic, const crypto::SecretBytes& plaintext);
std::optional<crypto::SecretBytes> openCredentialBundle(const crypto::SecretBytes& receiverPrivate,
                                                        const std::string& bundle);

// {"encappedPublic":"04…","ciphertext":"…"} and back; `extraFields` are appended in order
// (export adds organizationId). Parsing returns nullopt for anything else.
std::string sealedJson(const hpke::Sealed& sealed,
                       const std::vector<std::pair<std::string, std::string>>& extraFields = {});
std::optional<hpke::Sealed> parseSealedJson(const std::string& text);

// {"version":"v1.0.0","data":"<hex of dataJson>","dataSignature":"<DER hex>",
//  "enclaveQuorumPublic":"<signer key>"}: `sign` signs SHA-256 of the data bytes.
std::string signedEnvelope(const std::string& dataJson, const crypto::DigestSigner& sign,
                           const std::string& signerPublicHex);
// The data JSON of an envelope when its signature verifies under `signerPublicHex`.
std::optional<std::string> openEnvelope(const std::string& envelope,
                                        const std::string& signerPublicHex);

}  // namespace signet::bundles
