#include "chains/spark/spark_claim_transfer.hpp"

#include <set>

#include "chains/spark/ecies.hpp"
#include "chains/spark/spark_intent.hpp"
#include "chains/tron/protobuf.hpp"

namespace signing {

using namespace signet;
using crypto::SecretBytes;
using json::Object;

namespace {
const auto kK1 = crypto::Curve::kSecp256k1;

struct InboundLeaf {
  std::string id;
  Bytes ciphertext;
  crypto::EcdsaSignature senderSignature;
};
struct Claim {
  std::string transferId;
  Bytes senderKey;
  std::vector<InboundLeaf> leaves;
  SparkOperators operators;
};

Bytes requireHex(const std::string& hex, const std::string& field) {
  auto bytes = fromHex(hex);
  if (!bytes || bytes->empty())
    throw invalidArgument("invalid field " + field + ": \"" + hex + "\" is not non-empty hex");
  return *bytes;
}

Claim readClaim(const SparkClaimParameters& c) {
  const std::string f = "parameters.claim";
  Claim out;
  out.transferId = c.transferId;
  out.senderKey = compressedSecp256k1Key(c.senderIdentityPublicKey, f + ".senderIdentityPublicKey");
  requireCount(c.leaves.size(), kMaxSparkLeaves, f + ".leaves");
  std::set<std::string> ids;
  for (size_t i = 0; i < c.leaves.size(); ++i) {
    const SparkInboundLeafParameters& l = c.leaves[i];
    const std::string lf = f + ".leaves[" + std::to_string(i) + "]";
    InboundLeaf leaf;
    leaf.id = requireUniqueId(l.leafId, lf + ".leafId", ids);
    leaf.ciphertext = requireHex(l.ciphertext, lf + ".ciphertext");
    Bytes signature = requireHex(l.senderSignature, lf + ".senderSignature");
    if (signature.size() != 64)
      throw invalidArgument("invalid field " + lf +
                            ".senderSignature: " + std::to_string(signature.size()) +
                            " bytes, where a compact signature r ‖ s is 64");
    std::copy(signature.begin(), signature.begin() + 32, leaf.senderSignature.r.begin());
    std::copy(signature.begin() + 32, signature.end(), leaf.senderSignature.s.begin());
    out.leaves.push_back(std::move(leaf));
  }
  out.operators = readOperators(c.operatorRecipients, c.threshold, f);
  return out;
}

// The sender identity key's signature over a leaf: checked for every leaf before any is opened.
void checkSender(const Claim& claim, size_t i) {
  const InboundLeaf& leaf = claim.leaves[i];
  Bytes signed_ = toBytes(leaf.id + claim.transferId);
  signed_.insert(signed_.end(), leaf.ciphertext.begin(), leaf.ciphertext.end());
  if (!crypto::verifyEcdsa(kK1, claim.senderKey, crypto::sha256(signed_), leaf.senderSignature))
    throw invalidArgument("invalid field parameters.claim.leaves[" + std::to_string(i) +
                          "].senderSignature: it does not verify over sha256(leafId ‖ transferId ‖ "
                          "ciphertext) with senderIdentityPublicKey " +
                          toHex(claim.senderKey));
}

// The leaf key the sender sealed to this wallet's identity key.
SecretBytes openInbound(const Claim& claim, size_t i, const SecretBytes& identity) {
  const std::string lf = "parameters.claim.leaves[" + std::to_string(i) + "]";
  auto opened = eciesDecrypt(identity, claim.leaves[i].ciphertext);
  if (!opened)
    throw invalidArgument("invalid field " + lf +
                          ".ciphertext: it does not open with this wallet's identity key");
  if (opened->size() != 32 || !crypto::isValidPrivateKey(kK1, *opened))
    throw invalidArgument("invalid field " + lf + ".ciphertext: it holds " +
                          std::to_string(opened->size()) +
                          " bytes that are not a secp256k1 leaf key");
  return std::move(*opened);
}

const Shape<SparkInboundLeafParameters> kInboundLeaf = {
    field("leafId", &SparkInboundLeafParameters::leafId),
    field("ciphertext", &SparkInboundLeafParameters::ciphertext),
    field("senderSignature", &SparkInboundLeafParameters::senderSignature)};
const Shape<SparkClaimParameters> kClaim = {
    field("transferId", &SparkClaimParameters::transferId, {.uuid = true}),
    field("senderIdentityPublicKey", &SparkClaimParameters::senderIdentityPublicKey),
    field("leaves", &SparkClaimParameters::leaves, kInboundLeaf),
    field("operatorRecipients", &SparkClaimParameters::operatorRecipients,
          sparkOperatorRecipientShape()),
    field("threshold", &SparkClaimParameters::threshold)};
}  // namespace

const Shape<SparkClaimTransferParameters> kSparkClaimTransfer = {
    field("signWith", &SparkClaimTransferParameters::signWith),
    field("claim", &SparkClaimTransferParameters::claim, kClaim)};

Object sparkClaimTransfer(ActivityContext& ctx, const SparkClaimTransferParameters& p) {
  Claim claim = readClaim(p.claim);
  for (size_t i = 0; i < claim.leaves.size(); ++i) checkSender(claim, i);
  SparkWallet wallet = openSparkWallet(ctx, p.signWith);

  std::vector<OperatorShares> shares;  // per leaf
  json::Array newLeafPublicKeys = json::array();
  for (size_t i = 0; i < claim.leaves.size(); ++i) {
    const std::string& id = claim.leaves[i].id;
    SecretBytes inbound = openInbound(claim, i, wallet.identity.privateKey);
    SecretBytes own = leafKey(wallet, id);
    shares.push_back(splitFor(claim.operators, leafKeyTweak(inbound, own, id)));
    newLeafPublicKeys->add(leafPublicKey(id, own));
  }

  json::Array operatorPackages = json::array();
  for (size_t o = 0; o < claim.operators.recipients.size(); ++o) {
    Bytes message;  // ClaimLeafKeyTweaks: field 1 repeated, one per leaf
    crypto::WipeOnExit wipeMessage(message);
    for (size_t l = 0; l < claim.leaves.size(); ++l) {
      Bytes tweak = leafKeyTweakHead(claim.leaves[l].id, shares[l], o);
      crypto::WipeOnExit wipeTweak(tweak);
      appendProtoBytes(message, 1, tweak);
    }
    const SparkOperator& op = claim.operators.recipients[o];
    operatorPackages->add(operatorPackage(op, sealFor(op, message)));
  }
  Object out = json::object();
  out->set("operatorPackages", operatorPackages);
  out->set("newLeafPublicKeys", newLeafPublicKeys);
  return out;
}

}  // namespace signing
