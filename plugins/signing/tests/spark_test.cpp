// Spark's building blocks against the Spark SDK (@buildonspark/spark-sdk 0.8.8): addresses and
// keys of the "leaf lady …" mnemonic as its DefaultSparkSigner and encodeSparkAddress compute
// them (README.md beside this file); the ECIES layout its Rust bindings read; and Feldman shares,
// checked by Lagrange interpolation at 0 with OpenSSL's big numbers.
#include <gtest/gtest.h>

#include <set>

#include "chains/spark/ecies.hpp"
#include "chains/spark/feldman.hpp"
#include "chains/spark/frost.hpp"
#include "chains/spark/spark_keys.hpp"
#include "chains/spark/spark_sign_frost.hpp"
#include "feldman_recovery.hpp"
#include "keys/addresses.hpp"
#include "signet/error.hpp"

using namespace signet;
using crypto::Curve;

namespace {
const std::string kMnemonic =
    "leaf lady until indicate praise final route toast cake minimum insect unknown";

std::string publicKeyHexAt(const std::vector<hd::Segment>& path) {
  auto key = hd::derive(Curve::kSecp256k1, hd::seedFromMnemonic(kMnemonic, ""), path);
  return toHex(crypto::publicKeyFromPrivate(Curve::kSecp256k1, key.privateKey));
}
std::vector<hd::Segment> identityPath(uint32_t account) {
  return {{signing::kSparkPurpose, true}, {account, true}, {0, true}};
}
}  // namespace

TEST(Spark, AddressesAreTheSdksOfTheIdentityKey) {
  EXPECT_EQ(publicKeyHexAt(identityPath(0)),
            "03e8ff20c9634c9f9d46d8b5d21ed42a3677411310613ea9e87110d3697b9ed45a");
  EXPECT_EQ(signing::addressFor("ADDRESS_FORMAT_SPARK_MAINNET", Curve::kSecp256k1,
                                *fromHex(publicKeyHexAt(identityPath(0)))),
            "spark1pgss868lyrykxnyln4rd3dwjrm2z5dnhgyf3qcf74858zyxnd9aea4z6dl0ajr");
  EXPECT_EQ(signing::addressFor("ADDRESS_FORMAT_SPARK_REGTEST", Curve::kSecp256k1,
                                *fromHex(publicKeyHexAt(identityPath(1)))),
            "sparkrt1pgss955jzz0ppkcrtuz4z7zg7pkxv3uytxy7vxl9rmht9ewj7g44gk88906hpq");
  EXPECT_EQ(signing::addressFor(
                "ADDRESS_FORMAT_SPARK_MAINNET", Curve::kSecp256k1,
                *fromHex("02391dbbeaae88092345f906ba5891638df4706c4f39a895b797b12ffb5bfcc034")),
            "spark1pgssywgah042azqfydzljp46tzgk8r05wpky7wdgjkme0vf0lddlesp520f5ls");
  EXPECT_THROW(signing::addressFor("ADDRESS_FORMAT_SPARK_MAINNET", Curve::kEd25519, Bytes(32, 1)),
               Error);
}

TEST(Spark, LeafKeysAreTheSdksOfTheLeafId) {
  EXPECT_EQ(publicKeyHexAt(signing::sparkLeafPath(0, "leaf-1")),
            "03fb33622793f6e68f4afd939d85a612da51ad0250b9f2e159fabdfc7b1482f80b");
  EXPECT_EQ(publicKeyHexAt(signing::sparkLeafPath(1, "leaf-1")),
            "03cab5e1d00dea80194e5d0dd58d69c08d9497142ba48eb79414288413a55d64de");
}

TEST(Spark, OnlyAnIdentityPathNamesAnAccount) {
  EXPECT_EQ(signing::sparkAccountOfIdentityPath("m/8797555'/0'/0'"), 0u);
  EXPECT_EQ(signing::sparkAccountOfIdentityPath("m/8797555'/7'/0'"), 7u);
  for (const std::string path : {"m/8797555'/0'/1'", "m/8797555'/0'/0", "m/8797555'/0/0'",
                                 "m/8797555/0'/0'", "m/44'/0'/0'", "m/8797555'/0'/0'/0'", "m"})
    EXPECT_FALSE(signing::sparkAccountOfIdentityPath(path)) << path;
}

TEST(Spark, EciesOpensOnlyWithTheRecipientsKeyAndUntampered) {
  auto priv = crypto::generatePrivateKey(Curve::kSecp256k1);
  Bytes pub = crypto::publicKeyFromPrivate(Curve::kSecp256k1, priv);
  Bytes message = toBytes("a leaf key");
  Bytes sealed = signing::eciesEncrypt(pub, message.data(), message.size());
  // ephemeral key (uncompressed) ‖ 16-byte nonce ‖ 16-byte tag ‖ ciphertext
  ASSERT_EQ(sealed.size(), 65 + 16 + 16 + message.size());
  EXPECT_EQ(sealed[0], 0x04);
  auto opened = signing::eciesDecrypt(priv, sealed);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->bytes(), message);
  EXPECT_FALSE(signing::eciesDecrypt(crypto::generatePrivateKey(Curve::kSecp256k1), sealed));
  for (size_t at : {size_t{70}, size_t{85}, sealed.size() - 1}) {
    Bytes tampered = sealed;
    tampered[at] ^= 1;
    EXPECT_FALSE(signing::eciesDecrypt(priv, tampered)) << at;
  }
  EXPECT_FALSE(signing::eciesDecrypt(priv, Bytes(sealed.begin(), sealed.begin() + 96)));
  EXPECT_THROW(signing::eciesEncrypt(Bytes(33, 7), message.data(), message.size()),
               std::invalid_argument);
}

TEST(Spark, AnyThresholdOfFeldmanSharesRecoversTheSecret) {
  auto secret = crypto::generatePrivateKey(Curve::kSecp256k1);
  auto shares = signing::feldmanSplit(secret, 3, 5);
  ASSERT_EQ(shares.size(), 5u);
  Bytes secretPoint = crypto::publicKeyFromPrivate(Curve::kSecp256k1, secret);
  for (size_t i = 0; i < shares.size(); ++i) {
    EXPECT_EQ(shares[i].index, i + 1);
    ASSERT_EQ(shares[i].proofs.size(), 3u);
    EXPECT_EQ(shares[i].proofs, shares[0].proofs);
    EXPECT_EQ(shares[i].proofs[0], secretPoint);
  }
  EXPECT_EQ(signet::test::interpolateAtZero({&shares[0], &shares[1], &shares[2]}), secret.bytes());
  EXPECT_EQ(signet::test::interpolateAtZero({&shares[4], &shares[1], &shares[3]}), secret.bytes());
  // Two shares of a degree-2 polynomial are not enough.
  EXPECT_NE(signet::test::interpolateAtZero({&shares[0], &shares[1]}), secret.bytes());

  auto single = signing::feldmanSplit(secret, 1, 2);
  EXPECT_EQ(single[0].share.bytes(), secret.bytes());
  EXPECT_EQ(single[1].share.bytes(), secret.bytes());
  EXPECT_THROW(signing::feldmanSplit(secret, 0, 3), std::invalid_argument);
  EXPECT_THROW(signing::feldmanSplit(secret, 4, 3), std::invalid_argument);
  EXPECT_THROW(signing::feldmanSplit(crypto::SecretBytes(Bytes(32, 0)), 2, 3),
               std::invalid_argument);
}

namespace frost = signing::frost;

namespace {
// Participant n's identifier: the scalar n.
frost::Scalar identifier(uint8_t n) {
  frost::Scalar out{};
  out[31] = n;
  return out;
}
frost::Point pointHex(const std::string& hex) {
  return frost::pointOf(*fromHex(hex));
}
crypto::SecretBytes secretHex(const std::string& hex) {
  return crypto::SecretBytes(*fromHex(hex));
}
}  // namespace

// The FROST(secp256k1, SHA-256, TR) test vectors of the frost-secp256k1-tr crate
// (tests/helpers/vectors.json, the ZF FROST project): participants 1 and 3 of 2-of-3 sign
// "test". Nonces from their randomness (H3), binding factors (H1 over H4 and H5), commitments,
// and each signature share (the BIP-340 challenge and the even-Y rules) must be the crate's.
TEST(SparkFrost, SharesAreTheFrostSecp256k1TrVectors) {
  struct Signer {
    uint8_t id;
    std::string share, hidingRandomness, bindingRandomness, hiding, binding, hidingCommitment,
        bindingCommitment, bindingFactorInput, bindingFactor, sigShare;
  };
  const std::string prefix =
      "02f37c34b66ced1fb51c34a90bdae006901f10625cc06c4f64663b0eae87d87b4fc709887b880e002210593616e0"
      "86c2a0652d18bad338a3d3987251602e45e0a5a875faacc4377f0b6e4638c16db01b5f88070873ee789f5e9e6ac"
      "f91f52fdd";
  const Signer signers[] = {
      {1, "08f89ffe80ac94dcb920c26f3f46140bfc7f95b493f8310f5fc1ea2b01f4254c",
       "bda8e748e599187762cff956f03dc6ea13fc8e04491a0427b7e6e78600f41c52",
       "2ca682429bf05df435b9927b8edb1d748278f3e42fa11ef358e49bbf4a1b780d",
       "58cd30723da418156fe9b71870a118e0bbc3d0353ba7c760f9bbc8d60c3dab29",
       "c22289cc43b82ed938d4b2288efb7381c405fb59f5d43bddc543d98838c60b19",
       "024e34ab3a7ad6b4563dbfe97e9f1206b3378cceb2502491ed0fb709765e1e5ba8",
       "03d4b1f3a61dc67e64dfb4abfccabb712f1f6914a6ec9b67749d171370453192cb",
       prefix + "030000000000000000000000000000000000000000000000000000000000000001",
       "55a3e44879db6daf00c81eb28e828869560c0901f347baff524f1c91a6669604",
       "2ffc305d1694fd84108b84d98306a1af807c6ad9bc3a2d8e448a09643202a15b"},
      {3, "00e95d59dd0d46b0e303e500b62b7ccb0e555d49f5b849f5e748c071da8c0dbc",
       "70818dd5170672c4a4285fd593d4f222417f941f3118e1244955e7a1098a35d8",
       "74ca2da071ed4a2a6cad5087d6758b48a558ab5861c61117fee05757e4b1309e",
       "a4109db0a5db30fac8cd1f4e272ff02e08258928f067d82c63d97279b114514a",
       "ce3837bd963f0d81002279f7bb9eefceac64435f638885c2beae6f1dd881fd9e",
       "02d768658a1b94225645401a1512b803657770c7a21bf9ccccccfa09930a44951b",
       "034570a4e5217ee8770a28401185f50b4fce4d3f3933a3af9df7ab39b42381d0eb",
       prefix + "030000000000000000000000000000000000000000000000000000000000000003",
       "444c1cc7cfe48f4577cce65488f337a9cc8c33dea4cfa986eb590bd8e2b1fa2d",
       "a8c392566ea29e852b4080a028bf5547166c87e703e4fb7136d4ebef65f99b3f"},
  };
  frost::SigningPackage package{toBytes("test"), {}, {}, std::nullopt};
  for (const auto& s : signers) {
    package.group.insert(identifier(s.id));
    package.commitments[identifier(s.id)] = {pointHex(s.hidingCommitment),
                                             pointHex(s.bindingCommitment)};
  }
  for (const auto& s : signers) {
    SCOPED_TRACE(static_cast<int>(s.id));
    Bytes hidingInput = *fromHex(s.hidingRandomness + s.share);
    Bytes bindingInput = *fromHex(s.bindingRandomness + s.share);
    EXPECT_EQ(toHex(frost::hashToScalar("nonce", hidingInput).data(), 32), s.hiding);
    EXPECT_EQ(toHex(frost::hashToScalar("nonce", bindingInput).data(), 32), s.binding);
    EXPECT_EQ(toHex(frost::hashToScalar("rho", *fromHex(s.bindingFactorInput)).data(), 32),
              s.bindingFactor);
    frost::Nonces nonces{secretHex(s.hiding), secretHex(s.binding)};
    auto commitment = frost::commitmentOf(nonces);
    EXPECT_EQ(commitment.hiding, pointHex(s.hidingCommitment));
    EXPECT_EQ(commitment.binding, pointHex(s.bindingCommitment));
    auto share = frost::signShare(
        package, identifier(s.id), nonces, secretHex(s.share),
        pointHex("02f37c34b66ced1fb51c34a90bdae006901f10625cc06c4f64663b0eae87d87b4f"));
    EXPECT_EQ(toHex(share.data(), 32), s.sigShare);
  }
}

// spark_sign_frost's nonces are derived from everything its share depends on: the same inputs
// give the same nonces, and a change to any one of them gives others, so that no nonce is used
// for two challenges. Hiding and binding nonces differ.
TEST(SparkFrost, NoncesFollowEveryInputOfTheShare) {
  auto key = crypto::generatePrivateKey(Curve::kSecp256k1);
  auto otherKey = crypto::generatePrivateKey(Curve::kSecp256k1);
  Bytes message(32, 7), otherMessage(32, 8);
  auto point = [] {
    return frost::pointOf(crypto::publicKeyFromPrivate(
        Curve::kSecp256k1, crypto::generatePrivateKey(Curve::kSecp256k1)));
  };
  frost::Point verifyingKey = point(), otherVerifyingKey = point(), adaptor = point();
  Bytes commitments(98, 1), otherCommitments(98, 2);
  auto nonces = [](const frost::Nonces& n) {
    return toHex(n.hiding.bytes()) + toHex(n.binding.bytes());
  };
  const std::string base =
      nonces(signing::sparkFrostNonces(key, message, verifyingKey, std::nullopt, commitments));
  EXPECT_EQ(
      nonces(signing::sparkFrostNonces(key, message, verifyingKey, std::nullopt, commitments)),
      base);
  const std::string changed[] = {
      nonces(signing::sparkFrostNonces(otherKey, message, verifyingKey, std::nullopt, commitments)),
      nonces(signing::sparkFrostNonces(key, otherMessage, verifyingKey, std::nullopt, commitments)),
      nonces(signing::sparkFrostNonces(key, message, otherVerifyingKey, std::nullopt, commitments)),
      nonces(signing::sparkFrostNonces(key, message, verifyingKey, adaptor, commitments)),
      nonces(signing::sparkFrostNonces(key, message, verifyingKey, std::nullopt, otherCommitments)),
  };
  std::set<std::string> all{base};
  for (const auto& n : changed) all.insert(n);
  EXPECT_EQ(all.size(), 6u);
  auto n = signing::sparkFrostNonces(key, message, verifyingKey, std::nullopt, commitments);
  EXPECT_NE(n.hiding.bytes(), n.binding.bytes());
}
