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

#include "signet/plugin.hpp"

namespace signing {

signet::json::Object sparkPrepareLightningReceive(signet::ActivityContext& ctx,
                                                  const signet::json::Object& p);

}  // namespace signing
