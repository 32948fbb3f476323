#include "chains/spark/spark_prepare_lightning_receive.hpp"

#include "chains/spark/spark_intent.hpp"

namespace signing {

using namespace signet;
using json::Object;

namespace {
const Shape<SparkLightningReceiveParameters> kLightningReceive = {
    field("operatorRecipients", &SparkLightningReceiveParameters::operatorRecipients,
          sparkOperatorRecipientShape()),
    field("threshold", &SparkLightningReceiveParameters::threshold)};
}  // namespace

const Shape<SparkPrepareLightningReceiveParameters> kSparkPrepareLightningReceive = {
    field("signWith", &SparkPrepareLightningReceiveParameters::signWith),
    field("lightningReceive", &SparkPrepareLightningReceiveParameters::lightningReceive,
          kLightningReceive)};

Object sparkPrepareLightningReceive(ActivityContext& ctx,
                                    const SparkPrepareLightningReceiveParameters& p) {
  const auto& r = p.lightningReceive;
  SparkOperators operators =
      readOperators(r.operatorRecipients, r.threshold, "parameters.lightningReceive");
  // The wallet is named, and must be a Spark account, though no key of it is used: the
  // operators give the preimage up to whoever pays the invoice.
  requireSparkAccount(ctx, p.signWith);

  auto preimage = crypto::generatePrivateKey(crypto::Curve::kSecp256k1);
  OperatorShares split = splitFor(operators, preimage);
  json::Array packages = json::array();
  for (size_t o = 0; o < operators.recipients.size(); ++o) {
    Bytes message = secretShareMessage(split.shares[o]);
    crypto::WipeOnExit wipeMessage(message);
    packages->add(
        operatorPackage(operators.recipients[o], sealFor(operators.recipients[o], message)));
  }
  Object out = json::object();
  out->set("operatorPackages", packages);
  out->set("paymentHash", crypto::toHex(crypto::sha256(preimage.bytes())));
  return out;
}

}  // namespace signing
