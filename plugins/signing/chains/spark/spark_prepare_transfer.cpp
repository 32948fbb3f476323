#include "chains/spark/spark_prepare_transfer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "chains/spark/ecies.hpp"
#include "chains/spark/feldman.hpp"
#include "chains/spark/spark_intent.hpp"
#include "chains/spark/spark_keys.hpp"
#include "chains/tron/protobuf.hpp"
#include "keys/key_material.hpp"

namespace signing {

using namespace signet;
using crypto::SecretBytes;
using json::Object;

namespace {
const auto kK1 = crypto::Curve::kSecp256k1;
struct Leaf {
  std::string id, oldLeafId, newLeafId;
  Bytes refundSignature, directRefundSignature, directFromCpfpRefundSignature;
};
struct Transfer {
  std::string id;
  std::vector<Leaf> leaves;
  SparkOperators operators;
  Bytes receiverKey;
};

Bytes optionalHex(const std::optional<std::string>& hex, const std::string& field) {
  auto bytes = fromHex(hex.value_or(""));
  if (!bytes) throw invalidArgument("invalid field " + field + ": not hex");
  return *bytes;
}

// A leaf's derivation must be a signingLeaf (the API says so for both sides of a transfer).
std::string signingLeafId(const SparkLeafDerivationParameters& derivation,
                          const std::string& field) {
  if (!derivation.signingLeaf)
    throw invalidArgument("invalid field " + field +
                          ": a transfer's leaf keys are signingLeaf derivations");
  const std::string& id = derivation.signingLeaf->leafId;
  if (id.empty()) throw invalidArgument("invalid field " + field + ".signingLeaf.leafId: empty");
  return id;
}

Transfer readTransfer(const SparkTransferParameters& t) {
  const std::string f = "parameters.transfer";
  Transfer out;
  out.id = t.transferId;
  requireCount(t.leaves.size(), kMaxSparkLeaves, f + ".leaves");
  std::set<std::string> leafIds, newLeaves;
  for (size_t i = 0; i < t.leaves.size(); ++i) {
    const SparkTransferLeafParameters& l = t.leaves[i];
    const std::string lf = f + ".leaves[" + std::to_string(i) + "]";
    Leaf leaf;
    leaf.id = requireUniqueId(l.leafId, lf + ".leafId", leafIds);
    leaf.oldLeafId = signingLeafId(l.oldLeafDerivation, lf + ".oldLeafDerivation");
    leaf.newLeafId = signingLeafId(l.newLeafDerivation, lf + ".newLeafDerivation");
    // The same derivation on both sides would make the tweak zero: nothing would move.
    if (leaf.oldLeafId == leaf.newLeafId)
      throw invalidArgument("invalid field " + lf +
                            ".newLeafDerivation: the new leaf key must differ from the old one");
    if (!newLeaves.insert(leaf.newLeafId).second)
      throw invalidArgument("invalid field " + lf + ".newLeafDerivation: leaf \"" + leaf.newLeafId +
                            "\" is the new key of two leaves");
    leaf.refundSignature = optionalHex(l.refundSignature, lf + ".refundSignature");
    leaf.directRefundSignature =
        optionalHex(l.directRefundSignature, lf + ".directRefundSignature");
    leaf.directFromCpfpRefundSignature =
        optionalHex(l.directFromCpfpRefundSignature, lf + ".directFromCpfpRefundSignature");
    out.leaves.push_back(std::move(leaf));
  }
  out.operators = readOperators(t.operatorRecipients, t.threshold, f);
  out.receiverKey = compressedSecp256k1Key(t.receiverPublicKey, f + ".receiverPublicKey");
  return out;
}

Bytes compactSignature(const SecretBytes& key, const crypto::Digest& digest) {
  auto sig = crypto::signEcdsa(kK1, key, digest);
  Bytes out(sig.r.begin(), sig.r.end());
  out.insert(out.end(), sig.s.begin(), sig.s.end());
  return out;
}

// Spark's Hasher: SHA-256 over tagHash ‖ tagHash ‖ values, each value length-prefixed with a
// big-endian uint64 (utils/hashstructure.ts); tagHash = SHA-256 of the tag's components, each
// prefixed the same way.
class TaggedHasher {
 public:
  explicit TaggedHasher(const std::vector<std::string>& tag) {
    Bytes serialized;
    for (const auto& part : tag) appendValue(serialized, toBytes(part));
    auto tagHash = crypto::sha256(serialized);
    data_.insert(data_.end(), tagHash.begin(), tagHash.end());
    data_.insert(data_.end(), tagHash.begin(), tagHash.end());
  }
  TaggedHasher& bytes(const Bytes& b) {
    appendValue(data_, b);
    return *this;
  }
  // A map: its entry count as a uint64 value, then key and value of each entry by key bytes.
  TaggedHasher& map(const std::map<std::string, Bytes>& m) {
    Bytes count(8, 0);
    for (int i = 0; i < 8; ++i) count[7 - i] = static_cast<uint8_t>(m.size() >> (8 * i));
    appendValue(data_, count);
    for (const auto& [k, v] : m) {  // std::map orders std::string keys bytewise
      appendValue(data_, toBytes(k));
      appendValue(data_, v);
    }
    return *this;
  }
  crypto::Digest hash() const { return crypto::sha256(data_); }

 private:
  static void appendValue(Bytes& out, const Bytes& value) {
    for (int i = 7; i >= 0; --i)
      out.push_back(static_cast<uint8_t>(uint64_t{value.size()} >> (8 * i)));
    out.insert(out.end(), value.begin(), value.end());
  }
  Bytes data_;
};

// One leaf's SendLeafKeyTweak for one operator (spark.proto field numbers); empty refund
// signatures are left out, as proto3 does.
Bytes sendLeafKeyTweak(const Leaf& leaf, const OperatorShares& split, size_t forOperator,
                       const Bytes& secretCipher, const Bytes& signature) {
  Bytes out = leafKeyTweakHead(leaf.id, split, forOperator);
  appendProtoBytes(out, 4, secretCipher);
  appendProtoBytes(out, 5, signature);
  const std::pair<uint32_t, const Bytes*> optional[] = {{6, &leaf.refundSignature},
                                                        {7, &leaf.directRefundSignature},
                                                        {8, &leaf.directFromCpfpRefundSignature}};
  for (const auto& [number, bytes] : optional)
    if (!bytes->empty()) appendProtoBytes(out, number, *bytes);
  return out;
}

using TransferLeaf = SparkTransferLeafParameters;
const Shape<SparkLeafDerivationParameters> kLeafDerivation = {
    field("signingLeaf", &SparkLeafDerivationParameters::signingLeaf, sparkSigningLeafShape())};
const Shape<TransferLeaf> kTransferLeaf = {
    field("leafId", &TransferLeaf::leafId),
    field("oldLeafDerivation", &TransferLeaf::oldLeafDerivation, kLeafDerivation),
    field("newLeafDerivation", &TransferLeaf::newLeafDerivation, kLeafDerivation),
    field("refundSignature", &TransferLeaf::refundSignature),
    field("directRefundSignature", &TransferLeaf::directRefundSignature),
    field("directFromCpfpRefundSignature", &TransferLeaf::directFromCpfpRefundSignature)};
const Shape<SparkTransferParameters> kTransfer = {
    field("transferId", &SparkTransferParameters::transferId, {.uuid = true}),
    field("leaves", &SparkTransferParameters::leaves, kTransferLeaf),
    field("operatorRecipients", &SparkTransferParameters::operatorRecipients,
          sparkOperatorRecipientShape()),
    field("threshold", &SparkTransferParameters::threshold),
    field("receiverPublicKey", &SparkTransferParameters::receiverPublicKey)};
}  // namespace

const Shape<SparkPrepareTransferParameters> kSparkPrepareTransfer = {
    field("signWith", &SparkPrepareTransferParameters::signWith),
    field("transfer", &SparkPrepareTransferParameters::transfer, kTransfer)};

Object sparkPrepareTransfer(ActivityContext& ctx, const SparkPrepareTransferParameters& p) {
  Transfer t = readTransfer(p.transfer);
  SparkWallet wallet = openSparkWallet(ctx, p.signWith);

  std::vector<OperatorShares> shares;  // per leaf
  std::vector<Bytes> ciphers, leafSignatures;
  json::Array newLeafPublicKeys = json::array();
  for (const auto& leaf : t.leaves) {
    auto oldKey = leafKey(wallet, leaf.oldLeafId);
    auto newKey = leafKey(wallet, leaf.newLeafId);
    shares.push_back(splitFor(t.operators, leafKeyTweak(oldKey, newKey, leaf.id)));
    ciphers.push_back(eciesEncrypt(t.receiverKey, newKey.data(), newKey.size()));
    Bytes signed_ = toBytes(leaf.id + t.id);
    signed_.insert(signed_.end(), ciphers.back().begin(), ciphers.back().end());
    leafSignatures.push_back(compactSignature(wallet.identity.privateKey, crypto::sha256(signed_)));
    newLeafPublicKeys->add(leafPublicKey(leaf.id, newKey));
  }

  std::map<std::string, Bytes> keyTweakPackage;
  json::Array operatorPackages = json::array();
  for (size_t o = 0; o < t.operators.recipients.size(); ++o) {
    const SparkOperator& op = t.operators.recipients[o];
    Bytes message;  // SendLeafKeyTweaks: field 1 repeated, one per leaf
    crypto::WipeOnExit wipeMessage(message);
    for (size_t l = 0; l < t.leaves.size(); ++l) {
      Bytes tweak = sendLeafKeyTweak(t.leaves[l], shares[l], o, ciphers[l], leafSignatures[l]);
      crypto::WipeOnExit wipeTweak(tweak);
      appendProtoBytes(message, 1, tweak);
    }
    Bytes sealed = sealFor(op, message);
    keyTweakPackage[op.id] = sealed;
    operatorPackages->add(operatorPackage(op, sealed));
  }

  std::string transferHex = t.id;
  transferHex.erase(std::remove(transferHex.begin(), transferHex.end(), '-'), transferHex.end());
  auto payload = TaggedHasher({"spark", "transfer", "signing payload"})
                     .bytes(*fromHex(transferHex))
                     .map(keyTweakPackage)
                     .hash();
  Object out = json::object();
  out->set("operatorPackages", operatorPackages);
  out->set("transferUserSignature", toHex(crypto::encodeDerSignature(crypto::signEcdsa(
                                        kK1, wallet.identity.privateKey, payload))));
  out->set("newLeafPublicKeys", newLeafPublicKeys);
  return out;
}

}  // namespace signing
