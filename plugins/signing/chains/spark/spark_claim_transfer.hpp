// spark_claim_transfer (ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER): the receiver's half of a Spark
// transfer, what spark_prepare_transfer (or any Spark sender) began.
//
// Each inbound leaf carries its key sealed to the receiver's identity key (ciphertext) and the
// sender identity key's compact signature over sha256(leafId ‖ transferId ‖ ciphertext), which
// is checked before anything is opened. The leaf moves to the wallet's own key for it (the
// SigningLeaf derivation at leafId): the tweak inbound − new (mod n) is Feldman-split for the
// operators, and each gets Spark's ClaimLeafKeyTweaks protobuf with its share of every leaf,
// ECIES-encrypted to its key. The inbound keys never leave the activity.
#pragma once

#include <string>
#include <vector>

#include "chains/spark/spark_intent.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct SparkInboundLeafParameters {
  std::string leafId, ciphertext, senderSignature;
};
struct SparkClaimParameters {
  std::string transferId, senderIdentityPublicKey;
  std::vector<SparkInboundLeafParameters> leaves;
  std::vector<SparkOperatorRecipientParameters> operatorRecipients;
  int64_t threshold = 0;
};
struct SparkClaimTransferParameters {
  std::string signWith;
  SparkClaimParameters claim;
};
extern const signet::Shape<SparkClaimTransferParameters> kSparkClaimTransfer;

signet::json::Object sparkClaimTransfer(signet::ActivityContext& ctx,
                                        const SparkClaimTransferParameters& params);

}  // namespace signing
