// spark_sign_frost (ACTIVITY_TYPE_SPARK_SIGN_FROST): a Spark wallet's share of FROST
// signatures, as Spark's user participant, for the operators to aggregate (frost.hpp).
//
// Each request names the key (a Spark key derivation: identity, signingLeaf, deposit,
// staticDeposit or htlcPreimage, below the account's m/8797555'/<account>'), the 32-byte
// sighash, the group verifying key P_operators + P_user and the operators' commitments, and
// optionally an adaptor point. The answer is the share and the wallet's own commitments.
//
// Nonces are derived, not drawn, so that the gateway keeps no nonce state between rounds:
// each is H3(HMAC-SHA256(key, label ‖ message ‖ verifyingKey ‖ 0x01 ‖ adaptor, or 0x00 without
// one, ‖ the operators' commitments, encoded as FROST encodes them) ‖ key), RFC 9591's
// nonce_generate with the HMAC in place of its random bytes, label "signet spark frost hiding"
// or "… binding". Everything
// the share depends on is bound into the HMAC, so the same request signs with the same nonces
// and gives the same share, and any change gives fresh nonces: a nonce is never used for two
// different challenges.
#pragma once

#include "chains/spark/frost.hpp"
#include "signet/plugin.hpp"

namespace signing {

// The nonces a request's inputs give (above); `operatorCommitments` is FROST's encoding.
frost::Nonces sparkFrostNonces(const signet::crypto::SecretBytes& key, const signet::Bytes& message,
                               const frost::Point& verifyingKey,
                               const std::optional<frost::Point>& adaptor,
                               const signet::Bytes& operatorCommitments);

signet::json::Object sparkSignFrost(signet::ActivityContext& ctx, const signet::json::Object& p);

}  // namespace signing
