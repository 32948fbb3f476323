// BIP-39, BIP-32 and SLIP-10 against the published vectors (BIP-39's Trezor vectors, BIP-32
// test vector 1, SLIP-10 test vector 1 for ed25519 and nist256p1), plus the export vector's
// mnemonic of the export-bundle test vectors (tkhq/rust-sdk enclave_encrypt) checked against
// @scure/bip32's derivation of it.
#include <gtest/gtest.h>

#include "signet/hd_keys.hpp"

using namespace signet;

namespace {
std::vector<hd::Segment> path(const std::string& text) {
  std::string why;
  auto p = hd::parsePath(text, why);
  EXPECT_TRUE(p) << text << ": " << why;
  return p.value_or(std::vector<hd::Segment>{});
}
crypto::SecretBytes seed(const std::string& hex) {
  return crypto::SecretBytes(*fromHex(hex));
}
std::string priv(crypto::Curve c, const std::string& seedHex, const std::string& p) {
  return toHex(hd::derive(c, seed(seedHex), path(p)).privateKey.bytes());
}
const std::string kSeed1 = "000102030405060708090a0b0c0d0e0f";
}  // namespace

TEST(Bip39, WordListIsTheStandardOne) {
  // Its SHA-256, joined by newlines as english.txt is, is the published file's.
  std::string all;
  for (int i = 0; i < 2048; ++i) {
    Bytes e(16, 0);
    // Word i is the first word of entropy whose first 11 bits are i.
    e[0] = static_cast<uint8_t>(i >> 3);
    e[1] = static_cast<uint8_t>((i & 7) << 5);
    std::string m = hd::mnemonicFromEntropy(e);
    all += m.substr(0, m.find(' ')) + "\n";
  }
  EXPECT_EQ(crypto::toHex(crypto::sha256(all)),
            "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda");
}

TEST(Bip39, TrezorVectors) {
  struct V {
    std::string entropy, mnemonic, seed;
  };
  for (const auto& v : std::vector<V>{
           {"00000000000000000000000000000000",
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
            "abandon about",
            "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1"
            "c92f2cf141630c7a3c4ab7c81b2f001698e7463b04"},
           {"7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f",
            "legal winner thank year wave sausage worth useful legal winner thank yellow",
            "2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c809"
            "37a1c1069be3a3a5bd381ee6260e8d9739fce1f607"},
           {"ffffffffffffffffffffffffffffffff", "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
            "ac27495480225222079d7be181583751e86f571027b0497b5b5d11218e0a8a13332572917f0f8e5a589620"
            "c6f15b11c61dee327651a14c34e18231052e48c069"},
           {"0000000000000000000000000000000000000000000000000000000000000000",
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
            "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
            "abandon abandon abandon art",
            "bda85446c68413707090a52022edd26a1c9462295029f2e60cd7c4f2bbd3097170af7a4d73245cafa9c3cc"
            "a8d561a7c3de6f5d4a10be8ed2a5e608d68f92fcc8"}}) {
    EXPECT_EQ(hd::mnemonicFromEntropy(*fromHex(v.entropy)), v.mnemonic);
    std::string why;
    auto entropy = hd::entropyFromMnemonic(v.mnemonic, why);
    ASSERT_TRUE(entropy) << why;
    EXPECT_EQ(toHex(*entropy), v.entropy);
    EXPECT_EQ(toHex(hd::seedFromMnemonic(v.mnemonic, "TREZOR").bytes()), v.seed);
  }
}

TEST(Bip39, RefusesBadMnemonicsSayingWhy) {
  std::string why;
  EXPECT_FALSE(hd::entropyFromMnemonic(
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
      "abandon",
      why));
  EXPECT_EQ(why, "the checksum does not match");
  EXPECT_FALSE(hd::entropyFromMnemonic("abandon about", why));
  EXPECT_EQ(why, "a mnemonic has 12, 15, 18, 21 or 24 words, not 2");
  EXPECT_FALSE(hd::entropyFromMnemonic(
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
      "bitcoinz",
      why));
  EXPECT_EQ(why, "word 12 is not in the BIP-39 English list");
  for (int words : {12, 15, 18, 21, 24}) {
    std::string m = hd::generateMnemonic(words);
    EXPECT_TRUE(hd::entropyFromMnemonic(m, why)) << m;
  }
}

TEST(Bip32, Secp256k1TestVector1) {
  auto master = hd::derive(crypto::Curve::kSecp256k1, seed(kSeed1), {});
  EXPECT_EQ(toHex(master.privateKey.bytes()),
            "e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35");
  EXPECT_EQ(toHex(master.chainCode.bytes()),
            "873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508");
  EXPECT_EQ(priv(crypto::Curve::kSecp256k1, kSeed1, "m/0'/1/2'/2/1000000000"),
            "471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8");
}

TEST(Bip32, ExportVectorMnemonicDerivesTheEthereumKeyScureDoes) {
  auto s = hd::seedFromMnemonic(
      "leaf lady until indicate praise final route toast cake minimum insect unknown", "");
  auto key = hd::derive(crypto::Curve::kSecp256k1, s, path("m/44'/60'/0'/0/0"));
  EXPECT_EQ(toHex(key.privateKey.bytes()),
            "6fd4d81de4820d2f8f7b2df8aa63ebb4b042af5854313e1f3abae6b55eb1cf83");
  EXPECT_EQ(toHex(crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, key.privateKey)),
            "028b999d42537e749bf9659a41c452cb94b51ab38f7090c4203ca65a353fedb020");
}

TEST(Slip10, Ed25519TestVector1HardenedOnly) {
  auto master = hd::derive(crypto::Curve::kEd25519, seed(kSeed1), {});
  EXPECT_EQ(toHex(master.privateKey.bytes()),
            "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7");
  EXPECT_EQ(toHex(master.chainCode.bytes()),
            "90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb");
  EXPECT_EQ(priv(crypto::Curve::kEd25519, kSeed1, "m/0'/1'/2'"),
            "92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9");
  EXPECT_THROW(hd::derive(crypto::Curve::kEd25519, seed(kSeed1), path("m/44'/501'/0'/0")),
               std::invalid_argument);
}

TEST(Slip10, Nist256p1TestVector1) {
  EXPECT_EQ(priv(crypto::Curve::kP256, kSeed1, "m"),
            "612091aaa12e22dd2abef664f8a01a82cae99ad7441b7ef8110424915c268bc2");
  EXPECT_EQ(priv(crypto::Curve::kP256, kSeed1, "m/0'"),
            "6939694369114c67917a182c59ddb8cafc3004e63ca5d3b84403ba8613debc0c");
}

TEST(HdPath, ParsesAndRefuses) {
  std::string why;
  auto p = hd::parsePath("m/44'/60h/0'/0/7", why);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 5u);
  EXPECT_TRUE((*p)[1].hardened);
  EXPECT_EQ((*p)[1].index, 60u);
  EXPECT_FALSE((*p)[4].hardened);
  EXPECT_FALSE(hd::parsePath("44'/60'", why));
  EXPECT_FALSE(hd::parsePath("m/44'/x", why));
  EXPECT_EQ(why, "segment 2 is not a number");
  EXPECT_FALSE(hd::parsePath("m/2147483648", why));
}
