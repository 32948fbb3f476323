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

Bytes requireHex(const Object& o, const std::string& key, const std::string& path) {
  std::string hex = json::requireString(o, key, path);
  auto bytes = fromHex(hex);
  if (!bytes || bytes->empty())
    throw invalidArgument("invalid field " + path + "." + key + ": \"" + hex +
                          "\" is not non-empty hex");
  return *bytes;
}

Claim readClaim(const Object& p) {
  const std::string f = "parameters.claim";
  auto c = json::requireObject(p, "claim", "parameters");
  Claim out;
  out.transferId = json::requireUuid(c, "transferId", f);
  out.senderKey = compressedSecp256k1Key(c, "senderIdentityPublicKey", f);
  std::set<std::string> ids;
  eachEntry(c, "leaves", f, kMaxSparkLeaves, [&](const Object& l, const std::string& lf) {
    InboundLeaf leaf;
    leaf.id = requireUniqueId(l, "leafId", lf, ids);
    leaf.ciphertext = requireHex(l, "ciphertext", lf);
    Bytes signature = requireHex(l, "senderSignature", lf);
    if (signature.size() != 64)
      throw invalidArgument("invalid field " + lf +
                            ".senderSignature: " + std::to_string(signature.size()) +
                            " bytes, where a compact signature r ‖ s is 64");
    std::copy(signature.begin(), signature.begin() + 32, leaf.senderSignature.r.begin());
    std::copy(signature.begin() + 32, signature.end(), leaf.senderSignature.s.begin());
    out.leaves.push_back(std::move(leaf));
  });
  out.operators = readOperators(c, f);
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
}  // namespace

Object sparkClaimTransfer(ActivityContext& ctx, const Object& p) {
  Claim claim = readClaim(p);
  for (size_t i = 0; i < claim.leaves.size(); ++i) checkSender(claim, i);
  SparkWallet wallet = openSparkWallet(ctx, p);

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
