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

#include "signet/plugin.hpp"

namespace signing {

signet::json::Object sparkPrepareTransfer(signet::ActivityContext& ctx,
                                          const signet::json::Object& p);

}  // namespace signing
