// What the Spark activities read and write alike: the Spark wallet account `signWith` names (all
// four), the operators that receive shares and the threshold they are split with, and the
// per-operator packages they answer with (spark_prepare_transfer, spark_claim_transfer,
// spark_prepare_lightning_receive).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "chains/spark/feldman.hpp"
#include "keys/key_material.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signing {

// An activity shares to at most this many operators, and moves at most this many leaves: enough
// for the Spark network's operator sets and a wallet's leaves, and a bound on the work one
// activity does (leaves × operators shares, each ECIES-encrypted).
inline constexpr size_t kMaxSparkOperators = 32, kMaxSparkLeaves = 256;

struct SparkOperator {
  std::string id;
  signet::Bytes encryptionKey;  // compressed secp256k1
};
struct SparkOperators {
  std::vector<SparkOperator> recipients;  // share i + 1 goes to recipients[i]
  uint32_t threshold = 0;
};

// The wallet behind a Spark identity account: its identity key, its seed (leaf keys derive from
// it) and the account number of m/8797555'/<account>'/0'.
struct SparkWallet {
  SigningKey identity;
  signet::crypto::SecretBytes seed;
  uint32_t account = 0;
};

// What the Spark activities' parameters share, as the API sends it. The shapes are functions,
// not globals: the activities' shapes, in other files, copy them while statics are initialized.
//
// An entry of operatorRecipients: the operator and the key its package is encrypted to.
struct SparkOperatorRecipientParameters {
  std::string operatorId, encryptionPublicKey;
};
const signet::Shape<SparkOperatorRecipientParameters>& sparkOperatorRecipientShape();
// A signingLeaf key derivation.
struct SparkSigningLeafParameters {
  std::string leafId;
};
const signet::Shape<SparkSigningLeafParameters>& sparkSigningLeafShape();

// `signWith` (parameters.signWith), which must be a Spark wallet account at an identity path
// of this organization; InvalidArgument or FailedPrecondition naming it otherwise.
SignWithTarget requireSparkAccount(signet::ActivityContext& ctx, const std::string& signWith);
// The same account's wallet, opened.
SparkWallet openSparkWallet(signet::ActivityContext& ctx, const std::string& signWith);

// The wallet's signing key of a leaf (the SigningLeaf derivation at `leafId`).
signet::crypto::SecretBytes leafKey(const SparkWallet& wallet, const std::string& leafId);
// An entry of a result's newLeafPublicKeys: {leafId, publicKey} with `key`'s public key.
signet::json::Object leafPublicKey(const std::string& leafId,
                                   const signet::crypto::SecretBytes& key);

// `hex`, the field `field`: a hex compressed secp256k1 public key, as canonical bytes.
signet::Bytes compressedSecp256k1Key(const std::string& hex, const std::string& field);
// `id`, the field `field`: non-empty and not in `seen`, which it is added to.
std::string requireUniqueId(const std::string& id, const std::string& field,
                            std::set<std::string>& seen);
// A list of 1 to `max` entries (`count` of them), else InvalidArgument naming `field`.
void requireCount(size_t count, size_t max, const std::string& field);
// `<path>.operatorRecipients` (1 to kMaxSparkOperators, distinct ids, their keys) and
// `<path>.threshold` (1 to their number).
SparkOperators readOperators(const std::vector<SparkOperatorRecipientParameters>& recipients,
                             int64_t threshold, const std::string& path);

// The leaf key tweak `from` − `to` (mod n), which the operators apply to their shares of a leaf;
// FailedPrecondition naming the leaf when the two keys are the same (two leaf ids whose keys
// coincide, 2^-31 a pair, or an inbound key that is already the wallet's).
signet::crypto::SecretBytes leafKeyTweak(const signet::crypto::SecretBytes& from,
                                         const signet::crypto::SecretBytes& to,
                                         const std::string& leafId);
// A Feldman split of a secret for the operators: share i + 1 for recipients[i], and every
// share's public key by operator id (each operator is told all of them).
struct OperatorShares {
  std::vector<VerifiableShare> shares;
  std::map<std::string, signet::Bytes> points;
};
OperatorShares splitFor(const SparkOperators& operators, const signet::crypto::SecretBytes& secret);
// The head of Spark's SendLeafKeyTweak and ClaimLeafKeyTweak protobufs, which agree on it:
// leaf_id (1), this operator's SecretShare (2), and every operator's share·G by operator id (3).
signet::Bytes leafKeyTweakHead(const std::string& leafId, const OperatorShares& split,
                               size_t forOperator);

// Spark's SecretShare protobuf: the share (field 1) and its Feldman proofs (field 2).
signet::Bytes secretShareMessage(const VerifiableShare& share);
// `message` ECIES-encrypted to the operator, and that as an entry of a result's
// operatorPackages.
signet::Bytes sealFor(const SparkOperator& op, const signet::Bytes& message);
signet::json::Object operatorPackage(const SparkOperator& op, const signet::Bytes& sealed);

}  // namespace signing
