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

#include <optional>
#include <string>
#include <vector>

#include "chains/spark/frost.hpp"
#include "chains/spark/spark_intent.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct SparkStaticDepositParameters {
  int64_t index = 0;
};
// The key that signs, below the account: exactly one kind is named (the handler refuses none or
// several). identity, deposit and htlcPreimage are empty objects, kept as they came.
struct SparkKeyDerivationParameters {
  std::optional<signet::json::Object> identity;
  std::optional<SparkSigningLeafParameters> signingLeaf;
  std::optional<signet::json::Object> deposit;
  std::optional<SparkStaticDepositParameters> staticDeposit;
  std::optional<signet::json::Object> htlcPreimage;
};
struct SparkOperatorCommitmentParameters {
  std::string id, hiding, binding;
};
struct SparkSignatureRequestParameters {
  SparkKeyDerivationParameters derivation;
  std::string message, verifyingKey;
  std::optional<std::string> adaptorPublicKey;
  std::vector<SparkOperatorCommitmentParameters> operatorCommitments;
};
struct SparkSignFrostParameters {
  std::string signWith;
  std::vector<SparkSignatureRequestParameters> signatures;
};
extern const signet::Shape<SparkSignFrostParameters> kSparkSignFrost;

// The nonces a request's inputs give (above); `operatorCommitments` is FROST's encoding.
frost::Nonces sparkFrostNonces(const signet::crypto::SecretBytes& key, const signet::Bytes& message,
                               const frost::Point& verifyingKey,
                               const std::optional<frost::Point>& adaptor,
                               const signet::Bytes& operatorCommitments);

signet::json::Object sparkSignFrost(signet::ActivityContext& ctx,
                                    const SparkSignFrostParameters& params);

}  // namespace signing
