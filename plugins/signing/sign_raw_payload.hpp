// sign_raw_payload (V2) and sign_raw_payloads: HEX (optional 0x) or UTF-8
// payloads, hashed with NO_OP, SHA256 or KECCAK256 for ECDSA and Schnorr, NOT_APPLICABLE
// (PureEdDSA) for Ed25519. secp256k1 ECDSA is low-S with the recovery id in v ("00"/"01");
// a Taproot (P2TR) account signs BIP-341 Schnorr and a Spark account plain BIP-340 Schnorr
// (v "00"); r and s are 64 lowercase hex characters.
// Any other combination fails the activity naming curve, encoding and hash function.
#pragma once

#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct SignRawPayloadParameters {
  std::string signWith, payload, encoding, hashFunction;
};
struct SignRawPayloadsParameters {
  std::string signWith;
  std::vector<std::string> payloads;
  std::string encoding, hashFunction;
};
extern const signet::Shape<SignRawPayloadParameters> kSignRawPayload;
extern const signet::Shape<SignRawPayloadsParameters> kSignRawPayloads;

signet::json::Object signRawPayload(signet::ActivityContext& ctx,
                                    const SignRawPayloadParameters& params);
signet::json::Object signRawPayloads(signet::ActivityContext& ctx,
                                     const SignRawPayloadsParameters& params);

}  // namespace signing
