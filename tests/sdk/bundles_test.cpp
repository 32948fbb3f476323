// HPKE, Base58Check and the coordinator API's bundles, against the vectors of tkhq/sdk
// packages/crypto and tkhq/rust-sdk enclave_encrypt (from @turnkey/crypto's and the Rust SDK's own
// tests).
#include <gtest/gtest.h>

#include "signet/bundles.hpp"
#include "signet/quorum_envelope.hpp"

using namespace signet;

namespace {
crypto::SecretBytes secret(const std::string& hex) {
  return crypto::SecretBytes(*fromHex(hex));
}
const std::string kPlainKey = "67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9";
const std::string kProductionSigner =
    "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc870"
    "3acd69adca9a4bbf7f5d00d20a5e364b2569";
}  // namespace

TEST(Base58, EncodesAndDecodesKnownValues) {
  EXPECT_EQ(base58Encode(toBytes("Hello World!")), "2NEpo7TZRRrLZSi2U");
  EXPECT_EQ(base58Encode(*fromHex("0000287fb4cd")), "11233QC4");
  EXPECT_EQ(toHex(*base58Decode("11233QC4")), "0000287fb4cd");
  EXPECT_FALSE(base58Decode("0OIl"));  // not in the alphabet
}

TEST(Base58, CheckRejectsACorruptedChecksum) {
  std::string text = base58CheckEncode(*fromHex("00f54a5851e9372b87810a8e60cdd2e7cfd80b6e31"));
  EXPECT_EQ(text, "1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs");  // a Bitcoin P2PKH address
  text.back() = text.back() == 's' ? 't' : 's';
  EXPECT_FALSE(base58CheckDecode(text));
}

TEST(Hpke, DeriveKeyPairMatchesTheRustSdkVector) {
  auto priv = hpke::deriveKeyPair(
      *fromHex("c8e5d3ccbf8c4e62e3bcb984681ce6dda950939905754902a394c1fc2b5c6a9e"));
  EXPECT_EQ(toHex(priv.bytes()),
            "d2d9239a4bb25d09a6d91822e1d0991f0b21a63b102191bb98b6b77ac6fc6c91");
  EXPECT_EQ(toHex(crypto::uncompressPublicKey(
                crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv))),
            "0406f6d27ae62d66358b2b5888a8ccb2a0f4f1f86a5d2e9683b61c418b49e57df446b1518cb1c370e30ee8"
            "0c61266a56b342b424b26c6b86419001a404d1d5fcc5");
}

TEST(CredentialBundle, OpensTheTypeScriptVector) {
  auto plain = bundles::openCredentialBundle(
      secret("20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56"),
      "w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXW"
      "PEVbZvocB4Tw2K1vQVp7uwjf");
  ASSERT_TRUE(plain);
  EXPECT_EQ(toHex(plain->bytes()), kPlainKey);
}

TEST(CredentialBundle, OpensTheRustVector) {
  auto priv = hpke::deriveKeyPair(
      *fromHex("c8e5d3ccbf8c4e62e3bcb984681ce6dda950939905754902a394c1fc2b5c6a9e"));
  auto plain = bundles::openCredentialBundle(
      priv,
      "skr1QFHrNyL7xcvzRpU4t9yhL8rEVPZgDcFM5YW8S1YwLYjedoagnNZwMCyJsxNYzuphKHqQBkZxt4fLWSVsMqnW9Xd"
      "mLBsK2MhwC5WxuxZD9xE8ezQ");
  ASSERT_TRUE(plain);
  EXPECT_EQ(toHex(plain->bytes()), kPlainKey);
}

TEST(CredentialBundle, RoundTripsAndRefusesTheWrongKey) {
  auto receiver = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto other = crypto::generatePrivateKey(crypto::Curve::kP256);
  auto receiverPublic = crypto::publicKeyFromPrivate(crypto::Curve::kP256, receiver);
  auto bundle = bundles::credentialBundle(receiverPublic, secret(kPlainKey));
  auto opened = bundles::openCredentialBundle(receiver, bundle);
  ASSERT_TRUE(opened);
  EXPECT_EQ(toHex(opened->bytes()), kPlainKey);
  EXPECT_FALSE(bundles::openCredentialBundle(other, bundle));
  std::string tampered = bundle;
  tampered[10] = tampered[10] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(bundles::openCredentialBundle(receiver, tampered));
}

TEST(ExportBundle, OpensTheTypeScriptVectorAndChecksItsSignature) {
  const std::string data =
      R"({"encappedPublic":"044410ec87e5fe2ffda15a18fa377a21a3c41c3476f86133b4280ad76102f40d5db2dc53b47007cca93affc0a551dd514397d09791cfd9230fca3048b171f3d678","ciphertext":"efb058bf3ff4be4e222302bf2f607860b4274b2b01ac9456d3ba68da5a25626000a8982b14e0baf0a0de29f54454a379a3be6dc3d8c94987a1568c7d95f9fc4b91bef221ae5eb84233a2832114d179bdfdcf1d0f7adeb157f411a49840","organizationId":"f9a31c64-d604-42e4-9bef-a773096afad7"})";
  const std::string envelope =
      R"({"version":"v1.0.0","data":")" + toHex(toBytes(data)) +
      R"(","dataSignature":"304502203a7dc258590a637e76f6be6ed1a2080eed5614175060b9073f5e36592bdaf610022100ab9955b603df6cf45408067f652da48551652451b91967bf37dd094d13a7bdd4","enclaveQuorumPublic":")" +
      kProductionSigner + R"("})";
  auto opened = bundles::openEnvelope(envelope, kProductionSigner);
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, data);
  EXPECT_FALSE(bundles::openEnvelope(envelope, "04" + std::string(128, '1')));

  auto sealed = bundles::parseSealedJson(data);
  ASSERT_TRUE(sealed);
  auto mnemonic = bundles::open(
      secret("ffc6090f14bcf260e5dfe63f45412e60a477bb905956d7cc90195b71c2a544b3"), *sealed);
  ASSERT_TRUE(mnemonic);
  EXPECT_EQ(toString(mnemonic->bytes()),
            "leaf lady until indicate praise final route toast cake minimum insect unknown");
}

TEST(SignedEnvelope, VerifiesUnderTheSignerAndFailsWhenTampered) {
  auto signer = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string signerPublic = toHex(crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, signer)));
  std::string envelope = bundles::signedEnvelope(
      R"({"targetPublic":"04ab"})",
      [&](const crypto::Digest& d) { return crypto::signEcdsa(crypto::Curve::kP256, signer, d); },
      signerPublic);
  ASSERT_TRUE(bundles::openEnvelope(envelope, signerPublic));
  auto pos = envelope.find("\"data\":\"") + 9;
  envelope[pos] = envelope[pos] == '7' ? '6' : '7';
  EXPECT_FALSE(bundles::openEnvelope(envelope, signerPublic));
}

namespace signet {
namespace {

// Made by @turnkey/crypto's encryptOauth2ClientSecret("discord-client-secret-42", key) with the
// override argument, the key's private scalar 3f1ba1c1…f0a1.
TEST(QuorumEnvelopeTest, OpensWhatTheOfficialHelperEncrypts) {
  crypto::SecretBytes key(
      *fromHex("3f1ba1c1f2a8a2a5f7b0e6d2c4b6a8e0d2c4b6a8e0f2a4c6e8d0b2a4c6e8f0a1"));
  auto envelope = *fromHex(
      "f1d1769ddef699dce82e8a2804dc87a49085653ace7b08e236bb6ccbe7c6a75b47818e7022dfe5b04e2f5ffcdbd5"
      "95f07886c39e5083e7e00805bc18cfe310edd8a0bff24b4c86879adc88e17f280000001f077c4f6f685d9a06e8fa"
      "5751ffd345a7c0838b0e0a20647432e1341f9615ddb170b8771182c6c9");
  auto opened = quorum_envelope::open(key, envelope);
  ASSERT_TRUE(opened);
  EXPECT_EQ(std::string(opened->data(), opened->data() + opened->size()),
            "discord-client-secret-42");
  // One flipped bit anywhere, or another key, and it does not open.
  envelope[envelope.size() - 3] ^= 1;
  EXPECT_FALSE(quorum_envelope::open(key, envelope));
  EXPECT_FALSE(
      quorum_envelope::open(crypto::generatePrivateKey(crypto::Curve::kP256), *fromHex("00")));
}

TEST(QuorumEnvelopeTest, SealsWhatOpens) {
  auto key = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string secret = "x-client-secret";
  auto envelope =
      quorum_envelope::seal(crypto::publicKeyFromPrivate(crypto::Curve::kP256, key),
                            reinterpret_cast<const uint8_t*>(secret.data()), secret.size());
  auto opened = quorum_envelope::open(key, envelope);
  ASSERT_TRUE(opened);
  EXPECT_EQ(std::string(opened->data(), opened->data() + opened->size()), secret);
  EXPECT_FALSE(quorum_envelope::open(crypto::generatePrivateKey(crypto::Curve::kP256), envelope));
}

}  // namespace
}  // namespace signet
