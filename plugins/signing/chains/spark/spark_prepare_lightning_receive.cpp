#include "chains/spark/spark_prepare_lightning_receive.hpp"

#include "chains/spark/spark_intent.hpp"

namespace signing {

using namespace signet;
using json::Object;

Object sparkPrepareLightningReceive(ActivityContext& ctx, const Object& p) {
  const std::string f = "parameters.lightningReceive";
  SparkOperators operators =
      readOperators(json::requireObject(p, "lightningReceive", "parameters"), f);
  // The wallet is named, and must be a Spark account, though no key of it is used: the
  // operators give the preimage up to whoever pays the invoice.
  requireSparkAccount(ctx, p);

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
