// spark_prepare_lightning_receive (ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE): the preimage
// of a Lightning invoice that pays a Spark wallet, shared among the operators so that they, not
// the gateway, reveal it when the payment arrives.
//
// The preimage is a random secp256k1 scalar; paymentHash is its SHA-256, for the invoice. It is
// Feldman-split with `threshold`, share i + 1 going to operatorRecipients[i], each share as
// Spark's SecretShare protobuf ECIES-encrypted to its operator (what the Spark SDK's
// createLightningInvoice sends with store_preimage_share_v2). The preimage itself is neither
// returned nor stored.
#pragma once

#include <string>
#include <vector>

#include "chains/spark/spark_intent.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

struct SparkLightningReceiveParameters {
  std::vector<SparkOperatorRecipientParameters> operatorRecipients;
  int64_t threshold = 0;
};
struct SparkPrepareLightningReceiveParameters {
  std::string signWith;
  SparkLightningReceiveParameters lightningReceive;
};
extern const signet::Shape<SparkPrepareLightningReceiveParameters> kSparkPrepareLightningReceive;

signet::json::Object sparkPrepareLightningReceive(
    signet::ActivityContext& ctx, const SparkPrepareLightningReceiveParameters& params);

}  // namespace signing
