// Ethereum transaction signing and its eth.tx fact. The legacy case is EIP-155's own example
// (its signing data, hash and signed transaction). The typed vectors were computed once with
// viem's privateKeyToAccount(0x46…46).signTransaction (viem 2.57, installed by the
// conformance suite): a second implementation, and libsecp256k1's RFC 6979 nonces make the
// signatures comparable byte for byte.
#include <gtest/gtest.h>

#include "chains/ethereum/eth_transaction.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

const crypto::SecretBytes& key46() {
  static const crypto::SecretBytes k(Bytes(32, 0x46));
  return k;
}

Bytes hex(const std::string& h) {
  return *fromHex(h);
}

std::string sign(const std::string& unsignedHex) {
  EthTransaction tx = parseEthTransaction(hex(unsignedHex), "tx");
  return toHex(
      ethSignedTransaction(tx, crypto::signSecp256k1Recoverable(key46(), ethSigningDigest(tx))));
}

std::string refusal(const std::string& unsignedHex) {
  try {
    parseEthTransaction(hex(unsignedHex), "parameters.unsignedTransaction");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "accepted";
}

TEST(EthTransaction, Eip155Example) {
  const std::string signingData =
      "ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a7640000"
      "8001"
      "8080";
  EthTransaction tx = parseEthTransaction(hex(signingData), "tx");
  auto digest = ethSigningDigest(tx);
  EXPECT_EQ(toHex(digest.data(), digest.size()),
            "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53");
  EXPECT_EQ(sign(signingData),
            "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400"
            "008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d899"
            "7f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83");
}

TEST(EthTransaction, PreEip155LegacyUses27Or28) {
  // The same transaction without the chain id tail.
  std::string s =
      sign("e9098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080");
  auto top = rlpDecode(hex(s).data(), hex(s).size(), "signed");
  ASSERT_EQ(top.items.size(), 9u);
  ASSERT_EQ(top.items[6].bytes.size(), 1u);
  EXPECT_TRUE(top.items[6].bytes[0] == 27 || top.items[6].bytes[0] == 28);
}

TEST(EthTransaction, TypedTransactionsMatchViem) {
  EXPECT_EQ(sign("02f86d010984773594008506fc23ac0082ea60943535353535353535353535353535353535353535"
                 "880de0b6b3a764000084a9059cbbf838f7943535353535353535353535353535353535353535e1a0"
                 "0000000000000000000000000000000000000000000000000000000000000001"),
            "02f8b0010984773594008506fc23ac0082ea60943535353535353535353535353535353535353535880d"
            "e0b6b3a764000084a9059cbbf838f7943535353535353535353535353535353535353535e1a000000000"
            "0000000000000000000000000000000000000000000000000000000101a07733027ac55f167a77f313df"
            "f9538105c5b47d4e37552f418ab40474b787c9c0a06f5031e956a6c9c9ebf144178a95e466ae969d6dfd"
            "64e4eed70f548c1254b415");
  EXPECT_EQ(sign("01e583aa36a780843b9aca008252089435353535353535353535353535353535353535358080c0"),
            "01f86883aa36a780843b9aca008252089435353535353535353535353535353535353535358080c080a0"
            "4182a79a3329125bfe930a94669c7875df77d06fc3564f53b6ff260d64e3c8fda0620b1c218d056c90c0"
            "b542ffe23486a9cb92b18a0091ef38921948822f7a5145");
  EXPECT_EQ(sign("03f842010101028252089435353535353535353535353535353535353535358080c003e1a001abab"
                 "ababababababababababababababababababababababababababababab"),
            "03f885010101028252089435353535353535353535353535353535353535358080c003e1a001abababab"
            "ababababababababababababababababababababababababababab80a08a3afad600173f12a2db351bf7"
            "4fa62361d5dab57f6d8305ca819c5648fd2183a06b68f0fe9cbc195774aa80f7ead033f2f5c397ac0c5d"
            "49d909d3741ee38a7778");
  EXPECT_EQ(
      sign("04f87e01040102830186a0949d8a62f656a8d1615c1294fd71e9cfb3e4855a4f8080c0f85cf85a0194"
           "63c0c19a282a1b52b07dd5a65b58948a07dae32b0301a06d765486eee558eb75ad7d0e928a06d8ce81ea"
           "cc491ef672d9cdcc3a8752132da01e06bc6204154be1e4cda49f7e84220e87c40a42fb9fd981d47265e7"
           "538437b2"),
      "04f8c101040102830186a0949d8a62f656a8d1615c1294fd71e9cfb3e4855a4f8080c0f85cf85a01946"
      "3c0c19a282a1b52b07dd5a65b58948a07dae32b0301a06d765486eee558eb75ad7d0e928a06d8ce81eacc4"
      "91ef672d9cdcc3a8752132da01e06bc6204154be1e4cda49f7e84220e87c40a42fb9fd981d47265e75384"
      "37b201a01b2d7d3cedccaee5bde96ce2d0c9b3216051b225e34d58b95c3edf8eff3ca188a031dbdcfa3c8c"
      "80762ca7843637e538d2dc8c23df875c118ce159258f4e23e66e");
}

TEST(EthTransaction, FactReadsEveryField) {
  EthTransaction tx = parseEthTransaction(
      hex("02f86d010984773594008506fc23ac0082ea60943535353535353535353535353535353535353535880de"
          "0b6b3a764000084a9059cbbf838f7943535353535353535353535353535353535353535e1a000000000000"
          "00000000000000000000000000000000000000000000000000001"),
      "tx");
  auto f = ethTxFact(tx, "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F");
  EXPECT_EQ(f->getValue<std::string>("from"), "0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f");
  EXPECT_EQ(f->getValue<std::string>("to"), "0x3535353535353535353535353535353535353535");
  EXPECT_EQ(f->getValue<std::string>("data"), "0xa9059cbb");
  EXPECT_EQ(f->getValue<std::string>("type"), "TYPE_2");
  auto u = [&](const char* k) { return f->getObject(k)->getValue<std::string>("$uint"); };
  EXPECT_EQ(u("chain_id"), "1");
  EXPECT_EQ(u("nonce"), "9");
  EXPECT_EQ(u("value"), "1000000000000000000");
  EXPECT_EQ(u("gas"), "60000");
  EXPECT_EQ(u("max_priority_fee_per_gas"), "2000000000");
  EXPECT_EQ(u("max_fee_per_gas"), "30000000000");
  EXPECT_FALSE(f->has("gas_price"));  // not a field of type 2: reading it errors
  // Contract creation: to is ''; a pre-EIP-155 legacy transaction has no chain_id.
  auto create = ethTxFact(parseEthTransaction(hex("c9808080808083600000"), "tx"), "0x00");
  EXPECT_EQ(create->getValue<std::string>("to"), "");
  EXPECT_EQ(create->getValue<std::string>("type"), "LEGACY");
  EXPECT_FALSE(create->has("chain_id"));
}

TEST(EthTransaction, RefusesWhatIsNotOneUnsignedTransaction) {
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  // Signed already (the EIP-155 example's output, and viem's signed type 2).
  EXPECT_TRUE(
      has(refusal("f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6"
                  "b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e159062"
                  "0aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b"
                  "6d83"),
          "already signed"));
  EXPECT_TRUE(has(refusal("01f86883aa36a780843b9aca0082520894353535353535353535353535353535353535"
                          "35358080c080a04182a79a3329125bfe930a94669c7875df77d06fc3564f53b6ff260d"
                          "64e3c8fda0620b1c218d056c90c0b542ffe23486a9cb92b18a0091ef38921948822f7a"
                          "5145"),
                  "already signed"));
  // The blob network wrapper [body, blobs, commitments, proofs].
  EXPECT_TRUE(has(refusal("03c5c101c0c0c0"), "sidecars"));
  EXPECT_TRUE(has(refusal("05c0"), "unknown transaction type 0x05"));
  EXPECT_TRUE(has(refusal("76c0"), "TRANSACTION_TYPE_TEMPO"));
  // A nonce with a leading zero byte, an integer wrapped as a list, trailing bytes.
  EXPECT_TRUE(has(refusal("c781058080808080"), "not canonical"));
  EXPECT_TRUE(has(refusal("c88200098080808080"), "nonce has a leading zero"));
  EXPECT_TRUE(has(refusal("c6c0808080808000"), "bytes after the end"));
  // `to` of 19 bytes; a type 2 creation (allowed) but a type 3 creation (not).
  EXPECT_TRUE(
      has(refusal("d980808093353535353535353535353535353535353535358080"), "to has 19 bytes"));
  EXPECT_TRUE(has(refusal("03ee01010102825208808080c003e1a001" + std::string(62, 'a')), "not 20"));
  EXPECT_TRUE(has(refusal("02c50180808080"), "has 9 fields, this one 5"));
  EXPECT_TRUE(has(refusal(""), "empty"));
  // An RLP bomb: lists nested past the depth limit.
  EXPECT_TRUE(has(refusal("d4d3d2d1d0cfcecdcccbcac9c8c7c6c5c4c3c2c1c0"), "nested deeper"));
}

}  // namespace
}  // namespace signing
