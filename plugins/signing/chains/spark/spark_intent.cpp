#include "chains/spark/spark_intent.hpp"

#include <map>
#include <set>

#include "chains/spark/ecies.hpp"
#include "chains/spark/spark_keys.hpp"
#include "chains/tron/protobuf.hpp"

namespace signing {

using namespace signet;
using json::Object;

const Shape<SparkOperatorRecipientParameters>& sparkOperatorRecipientShape() {
  static const Shape<SparkOperatorRecipientParameters> shape = {
      field("operatorId", &SparkOperatorRecipientParameters::operatorId),
      field("encryptionPublicKey", &SparkOperatorRecipientParameters::encryptionPublicKey)};
  return shape;
}

const Shape<SparkSigningLeafParameters>& sparkSigningLeafShape() {
  static const Shape<SparkSigningLeafParameters> shape = {
      field("leafId", &SparkSigningLeafParameters::leafId)};
  return shape;
}

SignWithTarget requireSparkAccount(ActivityContext& ctx, const std::string& signWith) {
  auto account = locateSignWith(ctx, signWith);
  if (!account || !account->walletAccount ||
      account->addressFormat.rfind("ADDRESS_FORMAT_SPARK_", 0) != 0)
    throw invalidArgument("invalid field parameters.signWith: \"" + signWith +
                          "\" is not a Spark wallet account address in organization " +
                          ctx.organizationId());
  if (!sparkAccountOfIdentityPath(account->path))
    throw failedPrecondition("wallet account " + account->address + " has path \"" + account->path +
                             "\"; a Spark identity key is at m/8797555'/<account>'/0'");
  return std::move(*account);
}

SparkWallet openSparkWallet(ActivityContext& ctx, const std::string& signWith) {
  SignWithTarget account = requireSparkAccount(ctx, signWith);
  return {openSignWith(ctx, account), walletSeed(ctx, account.walletId),
          *sparkAccountOfIdentityPath(account.path)};
}

crypto::SecretBytes leafKey(const SparkWallet& wallet, const std::string& leafId) {
  return hd::derive(crypto::Curve::kSecp256k1, wallet.seed, sparkLeafPath(wallet.account, leafId))
      .privateKey;
}

Object leafPublicKey(const std::string& leafId, const crypto::SecretBytes& key) {
  Object entry = json::object();
  entry->set("leafId", leafId);
  entry->set("publicKey", toHex(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, key)));
  return entry;
}

Bytes compressedSecp256k1Key(const std::string& hex, const std::string& field) {
  auto bytes = fromHex(hex);
  std::optional<Bytes> point;
  if (bytes && bytes->size() == 33)
    point = crypto::normalizePublicKey(crypto::Curve::kSecp256k1, *bytes);
  if (!point)
    throw invalidArgument("invalid field " + field + ": \"" + hex +
                          "\" is not a hex-encoded compressed secp256k1 public key");
  return *point;
}

std::string requireUniqueId(const std::string& id, const std::string& field,
                            std::set<std::string>& seen) {
  if (id.empty()) throw invalidArgument("invalid field " + field + ": empty");
  if (!seen.insert(id).second)
    throw invalidArgument("invalid field " + field + ": \"" + id + "\" appears twice");
  return id;
}

void requireCount(size_t count, size_t max, const std::string& field) {
  if (count == 0) throw invalidArgument("invalid field " + field + ": must not be empty");
  if (count > max)
    throw invalidArgument("invalid field " + field + ": at most " + std::to_string(max) + ", got " +
                          std::to_string(count));
}

SparkOperators readOperators(const std::vector<SparkOperatorRecipientParameters>& recipients,
                             int64_t threshold, const std::string& path) {
  const std::string list = path + ".operatorRecipients";
  requireCount(recipients.size(), kMaxSparkOperators, list);
  SparkOperators out;
  std::set<std::string> ids;
  for (size_t i = 0; i < recipients.size(); ++i) {
    const std::string at = list + "[" + std::to_string(i) + "]";
    out.recipients.push_back(
        {requireUniqueId(recipients[i].operatorId, at + ".operatorId", ids),
         compressedSecp256k1Key(recipients[i].encryptionPublicKey, at + ".encryptionPublicKey")});
  }
  if (threshold < 1 || static_cast<uint64_t>(threshold) > out.recipients.size())
    throw invalidArgument("invalid field " + path + ".threshold: " + std::to_string(threshold) +
                          " (expected 1 to the number of operatorRecipients, " +
                          std::to_string(out.recipients.size()) + ")");
  out.threshold = static_cast<uint32_t>(threshold);
  return out;
}

crypto::SecretBytes leafKeyTweak(const crypto::SecretBytes& from, const crypto::SecretBytes& to,
                                 const std::string& leafId) {
  auto negated = crypto::negateScalarSecp256k1(to);
  auto tweak = negated ? crypto::addScalarsSecp256k1(from, *negated) : std::nullopt;
  if (!tweak)
    throw failedPrecondition("leaf " + leafId +
                             ": the key it moves from and the key it moves to are the same key");
  return std::move(*tweak);
}

OperatorShares splitFor(const SparkOperators& operators, const crypto::SecretBytes& secret) {
  OperatorShares out{
      feldmanSplit(secret, operators.threshold, static_cast<uint32_t>(operators.recipients.size())),
      {}};
  for (size_t k = 0; k < operators.recipients.size(); ++k)
    out.points[operators.recipients[k].id] =
        crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, out.shares[k].share);
  return out;
}

Bytes leafKeyTweakHead(const std::string& leafId, const OperatorShares& split, size_t forOperator) {
  Bytes secretShare = secretShareMessage(split.shares[forOperator]);
  crypto::WipeOnExit wipeShare(secretShare);
  Bytes out;
  appendProtoBytes(out, 1, toBytes(leafId));
  appendProtoBytes(out, 2, secretShare);
  // A protobuf map may be written in any order; this is by operator id.
  for (const auto& [operatorId, point] : split.points) {
    Bytes entry;
    appendProtoBytes(entry, 1, toBytes(operatorId));
    appendProtoBytes(entry, 2, point);
    appendProtoBytes(out, 3, entry);
  }
  return out;
}

Bytes secretShareMessage(const VerifiableShare& share) {
  Bytes out;
  appendProtoBytes(out, 1, share.share.bytes());
  for (const auto& proof : share.proofs) appendProtoBytes(out, 2, proof);
  return out;
}

Bytes sealFor(const SparkOperator& op, const Bytes& message) {
  return eciesEncrypt(op.encryptionKey, message.data(), message.size());
}

Object operatorPackage(const SparkOperator& op, const Bytes& sealed) {
  Object package = json::object();
  package->set("operatorId", op.id);
  package->set("encryptedPackage", toHex(sealed));
  return package;
}

}  // namespace signing
