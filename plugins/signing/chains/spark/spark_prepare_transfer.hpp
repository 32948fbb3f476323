// spark_prepare_transfer (ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER): the sender's half of a Spark
// transfer, built from a Spark wallet account's keys so that no share leaves unencrypted.
//
// Keys (the Spark SDK's derivation): the account's path is m/8797555'/<account>'/0', its
// identity key; a leaf's signing key is m/8797555'/<account>'/1'/<sha256(leafId)[0..4] mod
// 2^31>'. For each leaf, the tweak old − new (mod n) is Feldman-split with `threshold`, share
// i + 1 going to operatorRecipients[i]; the new leaf key is ECIES-encrypted to
// receiverPublicKey (secret_cipher) and the identity key signs sha256(leafId ‖ transferId ‖
// secret_cipher) in compact form. Each operator gets Spark's SendLeafKeyTweaks protobuf with
// its share of every leaf, ECIES-encrypted to its key; the identity key signs Spark's
// domain-tagged transfer package payload (DER) over those ciphertexts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chains/spark/spark_intent.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

// A leaf key's derivation. The API's object names one of several kinds; a transfer's leaf keys
// are signingLeaf derivations, so that is the only one read (the handler refuses the others).
struct SparkLeafDerivationParameters {
  std::optional<SparkSigningLeafParameters> signingLeaf;
};
struct SparkTransferLeafParameters {
  std::string leafId;
  SparkLeafDerivationParameters oldLeafDerivation, newLeafDerivation;
  std::optional<std::string> refundSignature, directRefundSignature, directFromCpfpRefundSignature;
};
struct SparkTransferParameters {
  std::string transferId;
  std::vector<SparkTransferLeafParameters> leaves;
  std::vector<SparkOperatorRecipientParameters> operatorRecipients;
  int64_t threshold = 0;
  std::string receiverPublicKey;
};
struct SparkPrepareTransferParameters {
  std::string signWith;
  SparkTransferParameters transfer;
};
extern const signet::Shape<SparkPrepareTransferParameters> kSparkPrepareTransfer;

signet::json::Object sparkPrepareTransfer(signet::ActivityContext& ctx,
                                          const SparkPrepareTransferParameters& params);

}  // namespace signing
