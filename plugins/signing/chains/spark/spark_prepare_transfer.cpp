#include "chains/spark/spark_prepare_transfer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "chains/spark/ecies.hpp"
#include "chains/spark/feldman.hpp"
#include "chains/spark/spark_keys.hpp"
#include "chains/tron/protobuf.hpp"
#include "keys/key_material.hpp"

namespace signing {

using namespace signet;
using crypto::SecretBytes;
using json::Object;

namespace {
const auto kK1 = crypto::Curve::kSecp256k1;
// A transfer moves at most this many leaves to at most this many operators: enough for the
// Spark network's operator sets and a wallet's leaves, and a bound on the work one activity
// does (leaves × operators shares, each ECIES-encrypted).
constexpr size_t kMaxLeaves = 256, kMaxOperators = 32;

struct Leaf {
  std::string id, oldLeafId, newLeafId;
  Bytes refundSignature, directRefundSignature, directFromCpfpRefundSignature;
};
struct Operator {
  std::string id;
  Bytes encryptionKey;
};
struct Transfer {
  std::string id;
  std::vector<Leaf> leaves;
  uint32_t threshold = 0;
  std::vector<Operator> operators;
  Bytes receiverKey;
};

Bytes compressedKey(const Object& o, const std::string& key, const std::string& path) {
  std::string hex = json::requireString(o, key, path);
  auto bytes = fromHex(hex);
  std::optional<Bytes> point;
  if (bytes && bytes->size() == 33) point = crypto::normalizePublicKey(kK1, *bytes);
  if (!point)
    throw invalidArgument("invalid field " + path + "." + key + ": \"" + hex +
                          "\" is not a hex-encoded compressed secp256k1 public key");
  return *point;
}

Bytes optionalHex(const Object& o, const std::string& key, const std::string& path) {
  std::string hex = json::optionalString(o, key, path).value_or("");
  auto bytes = fromHex(hex);
  if (!bytes) throw invalidArgument("invalid field " + path + "." + key + ": not hex");
  return *bytes;
}

// A leaf's derivation must be a signingLeaf (the API says so for both sides of a transfer).
std::string signingLeafId(const Object& leaf, const std::string& key, const std::string& path) {
  auto derivation = json::requireObject(leaf, key, path);
  auto signingLeaf = json::optionalObject(derivation, "signingLeaf", path + "." + key);
  if (!signingLeaf)
    throw invalidArgument("invalid field " + path + "." + key +
                          ": a transfer's leaf keys are signingLeaf derivations");
  std::string id = json::requireString(signingLeaf, "leafId", path + "." + key + ".signingLeaf");
  if (id.empty())
    throw invalidArgument("invalid field " + path + "." + key + ".signingLeaf.leafId: empty");
  return id;
}

void requireCount(const json::Array& list, size_t max, const std::string& field) {
  if (list->size() == 0) throw invalidArgument("invalid field " + field + ": must not be empty");
  if (list->size() > max)
    throw invalidArgument("invalid field " + field + ": at most " + std::to_string(max) + ", got " +
                          std::to_string(list->size()));
}

Transfer readTransfer(const Object& p) {
  const std::string f = "parameters.transfer";
  auto t = json::requireObject(p, "transfer", "parameters");
  Transfer out;
  out.id = json::requireUuid(t, "transferId", f);
  auto leaves = json::requireArray(t, "leaves", f);
  requireCount(leaves, kMaxLeaves, f + ".leaves");
  std::set<std::string> leafIds, newLeaves;
  for (size_t i = 0; i < leaves->size(); ++i) {
    std::string lf = f + ".leaves[" + std::to_string(i) + "]";
    auto l = json::objectAt(leaves, i, f + ".leaves");
    Leaf leaf;
    leaf.id = json::requireString(l, "leafId", lf);
    if (leaf.id.empty()) throw invalidArgument("invalid field " + lf + ".leafId: empty");
    if (!leafIds.insert(leaf.id).second)
      throw invalidArgument("invalid field " + lf + ".leafId: \"" + leaf.id + "\" appears twice");
    leaf.oldLeafId = signingLeafId(l, "oldLeafDerivation", lf);
    leaf.newLeafId = signingLeafId(l, "newLeafDerivation", lf);
    // The same derivation on both sides would make the tweak zero: nothing would move.
    if (leaf.oldLeafId == leaf.newLeafId)
      throw invalidArgument("invalid field " + lf +
                            ".newLeafDerivation: the new leaf key must differ from the old one");
    if (!newLeaves.insert(leaf.newLeafId).second)
      throw invalidArgument("invalid field " + lf + ".newLeafDerivation: leaf \"" + leaf.newLeafId +
                            "\" is the new key of two leaves");
    leaf.refundSignature = optionalHex(l, "refundSignature", lf);
    leaf.directRefundSignature = optionalHex(l, "directRefundSignature", lf);
    leaf.directFromCpfpRefundSignature = optionalHex(l, "directFromCpfpRefundSignature", lf);
    out.leaves.push_back(std::move(leaf));
  }
  auto operators = json::requireArray(t, "operatorRecipients", f);
  requireCount(operators, kMaxOperators, f + ".operatorRecipients");
  std::set<std::string> operatorIds;
  for (size_t i = 0; i < operators->size(); ++i) {
    std::string of = f + ".operatorRecipients[" + std::to_string(i) + "]";
    auto o = json::objectAt(operators, i, f + ".operatorRecipients");
    Operator op{json::requireString(o, "operatorId", of),
                compressedKey(o, "encryptionPublicKey", of)};
    if (op.id.empty()) throw invalidArgument("invalid field " + of + ".operatorId: empty");
    if (!operatorIds.insert(op.id).second)
      throw invalidArgument("invalid field " + of + ".operatorId: \"" + op.id + "\" appears twice");
    out.operators.push_back(std::move(op));
  }
  int threshold = json::requireInt(t, "threshold", f);
  if (threshold < 1 || static_cast<size_t>(threshold) > out.operators.size())
    throw invalidArgument("invalid field " + f + ".threshold: " + std::to_string(threshold) +
                          " (expected 1 to the number of operatorRecipients, " +
                          std::to_string(out.operators.size()) + ")");
  out.threshold = static_cast<uint32_t>(threshold);
  out.receiverKey = compressedKey(t, "receiverPublicKey", f);
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
Bytes sendLeafKeyTweak(const Leaf& leaf, const VerifiableShare& share,
                       const std::map<std::string, Bytes>& pubkeyShares, const Bytes& secretCipher,
                       const Bytes& signature) {
  Bytes secretShare;
  crypto::WipeOnExit wipeShare(secretShare);
  appendProtoBytes(secretShare, 1, share.share.bytes());
  for (const auto& proof : share.proofs) appendProtoBytes(secretShare, 2, proof);
  Bytes out;
  appendProtoBytes(out, 1, toBytes(leaf.id));
  appendProtoBytes(out, 2, secretShare);
  for (const auto& [operatorId, point] : pubkeyShares) {
    Bytes entry;
    appendProtoBytes(entry, 1, toBytes(operatorId));
    appendProtoBytes(entry, 2, point);
    appendProtoBytes(out, 3, entry);
  }
  appendProtoBytes(out, 4, secretCipher);
  appendProtoBytes(out, 5, signature);
  const std::pair<uint32_t, const Bytes*> optional[] = {{6, &leaf.refundSignature},
                                                        {7, &leaf.directRefundSignature},
                                                        {8, &leaf.directFromCpfpRefundSignature}};
  for (const auto& [number, bytes] : optional)
    if (!bytes->empty()) appendProtoBytes(out, number, *bytes);
  return out;
}
}  // namespace

Object sparkPrepareTransfer(ActivityContext& ctx, const Object& p) {
  std::string signWith = json::requireString(p, "signWith", "parameters");
  Transfer t = readTransfer(p);
  auto account = locateSignWith(ctx, signWith);
  if (!account || !account->walletAccount ||
      account->addressFormat.rfind("ADDRESS_FORMAT_SPARK_", 0) != 0)
    throw invalidArgument("invalid field parameters.signWith: \"" + signWith +
                          "\" is not a Spark wallet account address in organization " +
                          ctx.organizationId());
  auto accountNumber = sparkAccountOfIdentityPath(account->path);
  if (!accountNumber)
    throw failedPrecondition("wallet account " + account->address + " has path \"" + account->path +
                             "\"; a Spark identity key is at m/8797555'/<account>'/0'");
  SigningKey identity = openSignWith(ctx, *account);
  SecretBytes seed = walletSeed(ctx, account->walletId);

  std::vector<std::vector<VerifiableShare>> shares;        // per leaf, per operator
  std::vector<std::map<std::string, Bytes>> pubkeyShares;  // per leaf: operator id → share·G
  std::vector<Bytes> ciphers, leafSignatures;
  json::Array newLeafPublicKeys = json::array();
  for (const auto& leaf : t.leaves) {
    auto oldKey = hd::derive(kK1, seed, sparkLeafPath(*accountNumber, leaf.oldLeafId)).privateKey;
    auto newKey = hd::derive(kK1, seed, sparkLeafPath(*accountNumber, leaf.newLeafId)).privateKey;
    auto negated = crypto::negateScalarSecp256k1(newKey);
    auto tweak = negated ? crypto::addScalarsSecp256k1(oldKey, *negated) : std::nullopt;
    if (!tweak)  // two leaf ids whose keys coincide: 2^-31 per pair
      throw failedPrecondition("leaf " + leaf.id + ": the old and new leaf keys are the same key");
    shares.push_back(feldmanSplit(*tweak, t.threshold, static_cast<uint32_t>(t.operators.size())));
    auto& points = pubkeyShares.emplace_back();
    for (size_t k = 0; k < t.operators.size(); ++k)
      points[t.operators[k].id] = crypto::publicKeyFromPrivate(kK1, shares.back()[k].share);
    ciphers.push_back(eciesEncrypt(t.receiverKey, newKey.data(), newKey.size()));
    Bytes signed_ = toBytes(leaf.id + t.id);
    signed_.insert(signed_.end(), ciphers.back().begin(), ciphers.back().end());
    leafSignatures.push_back(compactSignature(identity.privateKey, crypto::sha256(signed_)));
    Object entry = json::object();
    entry->set("leafId", leaf.id);
    entry->set("publicKey", toHex(crypto::publicKeyFromPrivate(kK1, newKey)));
    newLeafPublicKeys->add(entry);
  }

  std::map<std::string, Bytes> keyTweakPackage;
  json::Array operatorPackages = json::array();
  for (size_t o = 0; o < t.operators.size(); ++o) {
    Bytes message;  // SendLeafKeyTweaks: field 1 repeated, one per leaf
    crypto::WipeOnExit wipeMessage(message);
    for (size_t l = 0; l < t.leaves.size(); ++l) {
      Bytes tweak = sendLeafKeyTweak(t.leaves[l], shares[l][o], pubkeyShares[l], ciphers[l],
                                     leafSignatures[l]);
      crypto::WipeOnExit wipeTweak(tweak);
      appendProtoBytes(message, 1, tweak);
    }
    Bytes sealed = eciesEncrypt(t.operators[o].encryptionKey, message.data(), message.size());
    keyTweakPackage[t.operators[o].id] = sealed;
    Object package = json::object();
    package->set("operatorId", t.operators[o].id);
    package->set("encryptedPackage", toHex(sealed));
    operatorPackages->add(package);
  }

  std::string transferHex = t.id;
  transferHex.erase(std::remove(transferHex.begin(), transferHex.end(), '-'), transferHex.end());
  auto payload = TaggedHasher({"spark", "transfer", "signing payload"})
                     .bytes(*fromHex(transferHex))
                     .map(keyTweakPackage)
                     .hash();
  Object out = json::object();
  out->set("operatorPackages", operatorPackages);
  out->set("transferUserSignature",
           toHex(crypto::encodeDerSignature(crypto::signEcdsa(kK1, identity.privateKey, payload))));
  out->set("newLeafPublicKeys", newLeafPublicKeys);
  return out;
}

}  // namespace signing
