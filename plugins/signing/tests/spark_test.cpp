// Spark's building blocks against the Spark SDK (@buildonspark/spark-sdk 0.8.8): addresses and
// keys of the "leaf lady …" mnemonic as its DefaultSparkSigner and encodeSparkAddress compute
// them (README.md beside this file); the ECIES layout its Rust bindings read; and Feldman shares,
// checked by Lagrange interpolation at 0 with OpenSSL's big numbers.
#include <gtest/gtest.h>

#include "chains/spark/ecies.hpp"
#include "chains/spark/feldman.hpp"
#include "chains/spark/spark_keys.hpp"
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
