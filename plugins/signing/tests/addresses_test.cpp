// Address encodings against published vectors: EIP-55's own examples; BIP-44, BIP-84 and
// BIP-86 for Bitcoin; SEP-0005 for Stellar; and the "abandon … about" mnemonic's addresses
// as cosmjs (Cosmos), Phantom (Solana) and TronWeb publish them; XRPL's genesis account and
// Sui's SDK test mnemonic; Dogecoin and Aptos vectors of other wallets' tests. The "abandon"
// addresses of Dogecoin, XRP, Sui and Aptos are also checked against @scure/base and
// @noble/hashes computing the same chain rules (README.md beside this file).
#include <gtest/gtest.h>

#include "keys/addresses.hpp"
#include "signet/error.hpp"
#include "signet/hd_keys.hpp"

using namespace signet;
using crypto::Curve;

namespace {
const std::string kAbandon =
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

Bytes publicKeyAt(Curve curve, const std::string& mnemonic, const std::string& path) {
  std::string why;
  auto key = hd::derive(curve, hd::seedFromMnemonic(mnemonic, ""), *hd::parsePath(path, why));
  return crypto::publicKeyFromPrivate(curve, key.privateKey);
}
std::string address(const std::string& format, Curve curve, const std::string& path,
                    const std::string& mnemonic = kAbandon) {
  return signing::addressFor("ADDRESS_FORMAT_" + format, curve, publicKeyAt(curve, mnemonic, path));
}
}  // namespace

TEST(Addresses, Eip55Examples) {
  for (const std::string a :
       {"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"})
    EXPECT_EQ(signing::ethereumChecksumAddress(*fromHex(a)), a);
}

TEST(Addresses, EthereumOfTheExportVectorMnemonic) {
  // The exported mnemonic of the export-bundle vectors (tkhq/rust-sdk enclave_encrypt);
  // @scure/bip32 derives the same public key at this path.
  EXPECT_EQ(address("ETHEREUM", Curve::kSecp256k1, "m/44'/60'/0'/0/0",
                    "leaf lady until indicate praise final route toast cake minimum insect unknown")
                .size(),
            42u);
}

TEST(Addresses, BitcoinBip44Bip84Bip86) {
  EXPECT_EQ(address("BITCOIN_MAINNET_P2PKH", Curve::kSecp256k1, "m/44'/0'/0'/0/0"),
            "1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA");
  EXPECT_EQ(address("BITCOIN_MAINNET_P2WPKH", Curve::kSecp256k1, "m/84'/0'/0'/0/0"),
            "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
  EXPECT_EQ(address("BITCOIN_MAINNET_P2TR", Curve::kSecp256k1, "m/86'/0'/0'/0/0"),
            "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr");
  EXPECT_EQ(address("BITCOIN_TESTNET_P2WPKH", Curve::kSecp256k1, "m/84'/1'/0'/0/0"),
            "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl");
  EXPECT_EQ(address("BITCOIN_REGTEST_P2WPKH", Curve::kSecp256k1, "m/84'/1'/0'/0/0").substr(0, 6),
            "bcrt1q");
}

TEST(Addresses, CosmosSeiTronSolana) {
  EXPECT_EQ(address("COSMOS", Curve::kSecp256k1, "m/44'/118'/0'/0/0"),
            "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4");
  EXPECT_EQ(address("SEI", Curve::kSecp256k1, "m/44'/118'/0'/0/0").substr(0, 4), "sei1");
  EXPECT_EQ(address("TRON", Curve::kSecp256k1, "m/44'/195'/0'/0/0"),
            "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
  EXPECT_EQ(address("SOLANA", Curve::kEd25519, "m/44'/501'/0'/0'"),
            "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk");
}

TEST(Addresses, StellarSep0005) {
  EXPECT_EQ(address("XLM", Curve::kEd25519, "m/44'/148'/0'",
                    "illness spike retreat truth genius clock brain pass fit cave bargain toe"),
            "GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6");
}

TEST(Addresses, DogeXrpSuiAptosAsScureAndNobleCompute) {
  EXPECT_EQ(address("DOGE_MAINNET", Curve::kSecp256k1, "m/44'/3'/0'/0/0"),
            "DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC");
  EXPECT_EQ(address("XRP", Curve::kSecp256k1, "m/44'/144'/0'/0/0"),
            "rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3");
  EXPECT_EQ(address("SUI", Curve::kEd25519, "m/44'/784'/0'/0'/0'"),
            "0x5e93a736d04fbb25737aa40bee40171ef79f65fae833749e3c089fe7cc2161f1");
  EXPECT_EQ(address("APTOS", Curve::kEd25519, "m/44'/637'/0'/0'/0'"),
            "0xeb663b681209e7087d681c5d3eed12aaa8e1915e7c87794542c3f96e94b3d3bf");
}

TEST(Addresses, Blake2b256MatchesRfc7693Shape) {
  // BLAKE2b-256 of the empty string (a widely published value).
  EXPECT_EQ(crypto::toHex(crypto::blake2b256(nullptr, 0)),
            "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  std::string abc = "abc";
  EXPECT_EQ(crypto::toHex(crypto::blake2b256(reinterpret_cast<const uint8_t*>(abc.data()), 3)),
            "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
}

TEST(Addresses, UnsettledAndMismatchedFormatsAreRefusedSayingWhy) {
  auto k1 = publicKeyAt(Curve::kSecp256k1, kAbandon, "m/44'/0'/0'/0/0");
  auto ed = publicKeyAt(Curve::kEd25519, kAbandon, "m/44'/501'/0'/0'");
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] {
              signing::addressFor("ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH", Curve::kSecp256k1, k1);
            }),
            "address format ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH is not supported: the redeem "
            "script is not specified");
  EXPECT_NE(message([&] {
              signing::addressFor("ADDRESS_FORMAT_TON_V4R2", Curve::kEd25519, ed);
            }).find("wallet contract"),
            std::string::npos);
  EXPECT_NE(message([&] {
              signing::addressFor("ADDRESS_FORMAT_ETHEREUM", Curve::kEd25519, ed);
            }).find("made from secp256k1 keys, not Ed25519"),
            std::string::npos);
  EXPECT_EQ(message([&] { signing::addressFor("ADDRESS_FORMAT_NOPE", Curve::kEd25519, ed); }),
            "unknown address format \"ADDRESS_FORMAT_NOPE\"");
  EXPECT_EQ(signing::addressFor("ADDRESS_FORMAT_COMPRESSED", Curve::kEd25519, ed), toHex(ed));
  EXPECT_EQ(signing::addressFor("ADDRESS_FORMAT_UNCOMPRESSED", Curve::kSecp256k1, k1).size(), 130u);
}

TEST(Addresses, ChainPublishedVectors) {
  // XRPL documentation: the genesis account's public key and address.
  EXPECT_EQ(signing::addressFor(
                "ADDRESS_FORMAT_XRP", Curve::kSecp256k1,
                *fromHex("0330E7FC9D56BB25D6893BA3F317AE5BCF33B3291BD63DB32654A313222F7FD020")),
            "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh");
  // Sui's TypeScript SDK test mnemonic at m/44'/784'/0'/0'/0'.
  EXPECT_EQ(
      address("SUI", Curve::kEd25519, "m/44'/784'/0'/0'/0'",
              "film crazy soon outside stand loop subway crumble thrive popular green nuclear "
              "struggle pistol arm wife phrase warfare march wheat nephew ask sunny firm"),
      "0xa2d14fad60c56049ecf75246a481934691214ce413e6a8ae2fe6834c173a6133");
}

TEST(Addresses, DogecoinAndAptosVectorsOfOtherImplementations) {
  // Cryptopunk's Dogecoin test: this mnemonic at m/44'/1'/0'/0/0 on testnet.
  EXPECT_EQ(address("DOGE_TESTNET", Curve::kSecp256k1, "m/44'/1'/0'/0/0",
                    "hamster citizen citizen response rival want climb comfort bulk exist skill "
                    "receive shrimp meat lumber"),
            "nhA8G4Ds2nam712vnLiXitLAyLhLHhL9M6");
  // A mainnet address and its hash160 (0x1e version byte).
  EXPECT_EQ(base58CheckEncode(*fromHex("1e830a7420e63d76244ff7cbd1c248e94c14463259")),
            "DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L");
  // Trust Wallet Core's Aptos address test.
  EXPECT_EQ(signing::addressFor(
                "ADDRESS_FORMAT_APTOS", Curve::kEd25519,
                *fromHex("62e7a6a486553b56a53e89dfae3f780693e537e5b0a7ed33290780e581ca8369")),
            "0x1869b853768f0ba935d67f837a66b172dd39a60ca2315f8d4e0e669bbd35cf25");
}
