// Bitcoin PSBT signing on BIP-143's "native P2WPKH" example: its unsigned transaction, input 1
// spending 6 BTC from the key 619c33…feb9, whose SIGHASH_ALL digest and DER signature the BIP
// publishes. libsecp256k1's RFC 6979 nonces make the signature comparable byte for byte.
#include <gtest/gtest.h>

#include "chains/bitcoin/bitcoin_psbt.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

const std::string kUnsignedTx =
    "0100000002fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f0000000000eeffff"
    "ffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202c"
    "b206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143b"
    "de42dbee7e4dbe6a21b2d50ce2f0167faa815988ac11000000";
const std::string kKey = "619c335025c7f4012e556c2a58b2506e30b8511b53ade95ea316fd8c3286feb9";
const std::string kPublicKey = "025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee6357";
const std::string kSignature =
    "304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c451833"
    "1561406f90300e8f3358f51928d43c212a8caed02de67eebee01";

void entry(Bytes& out, const Bytes& key, const Bytes& value) {
  appendCompactSize(out, key.size());
  out.insert(out.end(), key.begin(), key.end());
  appendCompactSize(out, value.size());
  out.insert(out.end(), value.begin(), value.end());
}

// The example as a PSBT: input 0 (a P2PK output of someone else) without utxo data, input 1
// with its witness_utxo; `input1Extra` adds entries to input 1's map.
Bytes examplePsbt(const std::vector<std::pair<Bytes, Bytes>>& input1Extra = {}) {
  Bytes out{'p', 's', 'b', 't', 0xff};
  entry(out, {0x00}, *fromHex(kUnsignedTx));
  out.push_back(0x00);
  out.push_back(0x00);  // input 0: empty map
  Bytes utxo = *fromHex(
      "0046c32300000000"
      "16"
      "00141d0f172a0ecb48aee1be1f2687d2963ae33f71a1");
  entry(out, {0x01}, utxo);
  for (const auto& [k, v] : input1Extra) entry(out, k, v);
  out.push_back(0x00);
  out.push_back(0x00);  // output 0
  out.push_back(0x00);  // output 1
  return out;
}

crypto::SecretBytes key() {
  return crypto::SecretBytes(*fromHex(kKey));
}

std::string refusal(const Bytes& psbt) {
  try {
    Psbt p = parsePsbt(psbt, "parameters.unsignedTransaction");
    signPsbt(p, key(), "signer", "parameters.unsignedTransaction");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(BitcoinPsbt, SignsTheBip143ExampleByteForByte) {
  Psbt p = parsePsbt(examplePsbt(), "psbt");
  EXPECT_EQ(
      crypto::toHex(bip143SighashAll(
          p.tx, 1, *fromHex("76a9141d0f172a0ecb48aee1be1f2687d2963ae33f71a188ac"), 600000000)),
      "c37af31116d1b27caf68aae9e3ac82f1477929014d5b917657d0eb49478cb670");
  signPsbt(p, key(), "signer", "psbt");
  // Re-read what was emitted: input 1 now carries partial_sigs[pubkey] = the BIP's signature.
  Psbt again = parsePsbt(serializePsbt(p), "signed");
  EXPECT_TRUE(again.inputs[0].entries.empty());
  Bytes sigKey = *fromHex("02" + kPublicKey);
  auto& entries = again.inputs[1].entries;
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const auto& e) { return e.first == sigKey; });
  ASSERT_NE(it, entries.end());
  EXPECT_EQ(toHex(it->second), kSignature);
}

// BIP-341's wallet test vector (keyPathSpending): input 4 is signed with SIGHASH_DEFAULT, the
// one type signed here; its published sigHash pins the digest over all nine spent outputs.
TEST(BitcoinPsbt, TaprootKeyPathDigestMatchesBip341) {
  BtcTx tx = parseBtcTx(
      *fromHex(
          "02000000097de20cbff686da83a54981d2b9bab3586f4ca7e48f57f5b55963115f3b334e9c"
          "010000000000000000d7b7cab57b1393ace2d064f4d4a2cb8af6def61273e127517d44759b6dafdd99"
          "0000000000fffffffff8e1f583384333689228c5d28eac13366be082dc57441760d957275419a41842"
          "0000000000fffffffff0689180aa63b30cb162a73c6d2a38b7eeda2a83ece74310fda0843ad604853b"
          "0100000000feffffffaa5202bdf6d8ccd2ee0f0202afbbb7461d9264a25e5bfd3c5a52ee1239e0ba6c"
          "0000000000feffffff956149bdc66faa968eb2be2d2faa29718acbfe3941215893a2a3446d32acd050"
          "000000000000000000e664b9773b88c09c32cb70a2a3e4da0ced63b7ba3b22f848531bbb1d5d5f4c94"
          "010000000000000000e9aa6b8e6c9de67619e6a3924ae25696bb7b694bb677a632a74ef7eadfd4eabf"
          "0000000000ffffffffa778eb6a263dc090464cd125c466b5a99667720b1c110468831d058aa1b82af1"
          "0100000000ffffffff0200ca9a3b000000001976a91406afd46bcdfd22ef94ac122aa11f241244a37ecc88ac"
          "807840cb0000000020ac9a87f5594be208f8532db38cff670c450ed2fea8fcdefcc9a663f78bab962b0065cd"
          "1d"),
      "tx");
  std::vector<BtcOutput> spent;
  for (const auto& [amount, script] : std::vector<std::pair<uint64_t, std::string>>{
           {420000000, "512053a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343"},
           {462000000, "5120147c9c57132f6e7ecddba9800bb0c4449251c92a1e60371ee77557b6620f3ea3"},
           {294000000, "76a914751e76e8199196d454941c45d1b3a323f1433bd688ac"},
           {504000000, "5120e4d810fd50586274face62b8a807eb9719cef49c04177cc6b76a9a4251d5450e"},
           {630000000, "512091b64d5324723a985170e4dc5a0f84c041804f2cd12660fa5dec09fc21783605"},
           {378000000, "00147dd65592d0ab2fe0d0257d571abf032cd9db93dc"},
           {672000000, "512075169f4001aa68f15bbed28b218df1d0a62cbbcf1188c6665110c293c907b831"},
           {546000000, "5120712447206d7a5238acc7ff53fbe94a3b64539ad291c7cdbc490b7577e4b17df5"},
           {588000000, "512077e30a5522dd9f894c3f8b8bd4c4b2cf82ca7da8a3ea6a239655c39c050ab220"}})
    spent.push_back({amount, *fromHex(script)});
  EXPECT_EQ(crypto::toHex(taprootKeyPathSighash(tx, 4, spent)),
            "4f900a0bae3f1446fd48490c2958b5a023228f01661cda3496a11da502a7f7ef");
}

TEST(BitcoinPsbt, FactShowsOutputsAndNoFeeWithoutEveryAmount) {
  json::Object fact = bitcoinTxFact(parsePsbt(examplePsbt(), "psbt"), "");
  EXPECT_EQ(fact->getObject("version")->getValue<std::string>("$int"), "1");
  auto inputs = fact->getArray("inputs");
  ASSERT_EQ(inputs->size(), 2u);
  // Display order (reversed), as explorers and bitcoin-cli show txids.
  EXPECT_EQ(inputs->getObject(1)->getValue<std::string>("tx_id"),
            "8ac60eb9575db5b2d987e29f301b5b819ea83a5c6579d282d189cc04b8e151ef");
  EXPECT_EQ(inputs->getObject(0)->getObject("sequence")->getValue<std::string>("$int"),
            "4294967278");
  auto out0 = fact->getArray("outputs")->getObject(0);
  EXPECT_EQ(out0->getObject("value")->getValue<std::string>("$int"), "112340000");
  EXPECT_EQ(out0->getValue<std::string>("address"), "1Cu32FVupVCgHkMMRJdYJugxwo2Aprgk7H");
  EXPECT_EQ(out0->getValue<std::string>("address_type"), "P2PKH");
  EXPECT_EQ(fact->getObject("locktime")->getObject("amount")->getValue<std::string>("$int"), "17");
  EXPECT_EQ(fact->getObject("locktime")->getValue<std::string>("type"), "BLOCK_HEIGHT");
  EXPECT_FALSE(fact->has("fee"));  // input 0's amount is unknown: reading fee errors
}

TEST(BitcoinPsbt, Refusals) {
  // Sighash other than ALL, already signed, a second copy of a key, trailing bytes.
  EXPECT_NE(refusal(examplePsbt({{{0x03}, {0x03, 0, 0, 0}}})).find("is not SIGHASH_ALL"),
            std::string::npos);
  Psbt p = parsePsbt(examplePsbt(), "psbt");
  signPsbt(p, key(), "signer", "psbt");
  EXPECT_NE(refusal(serializePsbt(p)).find("already signed by this key"), std::string::npos);
  EXPECT_NE(refusal(examplePsbt({{{0x01}, {0x00}}})).find("appears twice"), std::string::npos);
  Bytes trailing = examplePsbt();
  trailing.push_back(0x00);
  EXPECT_NE(refusal(trailing).find("trailing bytes"), std::string::npos);
  EXPECT_NE(refusal(*fromHex("0011")).find("not a PSBT"), std::string::npos);
  // A key that spends nothing here.
  Psbt other = parsePsbt(examplePsbt(), "psbt");
  EXPECT_THROW(signPsbt(other, crypto::SecretBytes(Bytes(32, 0x46)), "k46", "psbt"), Error);
  // Its key inside a P2WSH witness script: not signed, said so.
  Bytes p2wshUtxo = *fromHex(
      "0046c32300000000"
      "22"
      "0020" +
      std::string(64, 'a'));
  Bytes witnessScript = *fromHex("21" + kPublicKey + "ac");
  Bytes wsh{'p', 's', 'b', 't', 0xff};
  entry(wsh, {0x00}, *fromHex(kUnsignedTx));
  wsh.insert(wsh.end(), {0x00, 0x00});
  entry(wsh, {0x01}, p2wshUtxo);
  entry(wsh, {0x05}, witnessScript);
  wsh.insert(wsh.end(), {0x00, 0x00, 0x00});
  EXPECT_NE(refusal(wsh).find("P2WSH inputs are not signed"), std::string::npos);
}

}  // namespace
}  // namespace signing
