// ABI decoding of calldata into contract_call_args. The encodings were made once with viem's
// encodeFunctionData (viem 2.57, installed by the conformance suite); the selectors are the
// well-known ones (transfer = 0xa9059cbb).
#include <gtest/gtest.h>

#include "chains/ethereum/abi.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

const char* kWeth =
    R"([{"type":"function","name":"transfer","inputs":[{"name":"dst","type":"address"},{"name":"wad","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]},
        {"type":"event","name":"Transfer","inputs":[{"name":"src","type":"address","indexed":true}]},
        {"type":"function","name":"deposit","inputs":[]}])";
const char* kBatch =
    R"([{"type":"function","name":"executeBatch","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}]}])";
const char* kMixed =
    R"([{"type":"function","name":"mixed","inputs":[{"name":"n","type":"int8"},{"name":"s","type":"string"},{"name":"flags","type":"bool[2]"},{"name":"ids","type":"uint16[]"},{"name":"h","type":"bytes4"}]}])";

std::string word(const std::string& hex) {
  return std::string(64 - hex.size(), '0') + hex;
}

Bytes calldata(const std::string& hex) {
  return *fromHex(hex);
}

std::string args(const DecodedCall& c) {
  return json::stringify(c.args->getObject("$map"));
}

TEST(Abi, TransferDecodesByName) {
  auto abi = parseAbi(kWeth, "abi");
  ASSERT_EQ(abi.size(), 2u);  // the event is skipped
  EXPECT_EQ(abi[0].signature, "transfer(address,uint256)");
  auto call =
      decodeCall(abi, calldata("a9059cbb" + word("08d2b0a37f869ff76bacb5bab3278e26ab7067b7") +
                               word("6f05b59d3b20000")));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "transfer");
  EXPECT_EQ(call->selectorHex, "0xa9059cbb");
  EXPECT_EQ(
      args(*call),
      R"({"dst":"0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7","wad":{"$uint":"500000000000000000"}})");
  // A selector the ABI lacks, short calldata, and dirty address padding decode to nothing.
  EXPECT_FALSE(decodeCall(abi, calldata("095ea7b3" + word("01") + word("01"))));
  EXPECT_FALSE(decodeCall(abi, calldata("a9059c")));
  EXPECT_FALSE(
      decodeCall(abi, calldata("a9059cbb" + word("ff" + std::string(40, '1')) + word("1"))));
  EXPECT_FALSE(decodeCall(abi, calldata("a9059cbb" + word("01"))));  // one word missing
}

TEST(Abi, TupleArraysAreListsReadByPosition) {
  auto call = decodeCall(
      parseAbi(kBatch, "abi"),
      calldata("34fcd5be" + word("20") + word("2") + word("40") + word("e0") +
               word("1111111111111111111111111111111111111111") + word("0") + word("60") +
               word("4") + "deadbeef00000000000000000000000000000000000000000000000000000000" +
               word("2222222222222222222222222222222222222222") + word("5") + word("60") +
               word("0")));
  ASSERT_TRUE(call);
  EXPECT_EQ(call->name, "executeBatch");
  EXPECT_EQ(
      args(*call),
      R"({"calls":[["0x1111111111111111111111111111111111111111",{"$uint":"0"},"0xdeadbeef"],)"
      R"(["0x2222222222222222222222222222222222222222",{"$uint":"5"},"0x"]]})");
}

TEST(Abi, SignedStringsFixedArraysAndFixedBytes) {
  auto call = decodeCall(
      parseAbi(kMixed, "abi"),
      calldata("a40ece1efffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd00000000"
               "000000000000000000000000000000000000000000000000000000c0000000000000000000000000"
               "00000000000000000000000000000000000000010000000000000000000000000000000000000000"
               "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
               "00000100a9059cbb0000000000000000000000000000000000000000000000000000000000000000"
               "0000000000000000000000000000000000000000000000000000000668c3a96c6c6f000000000000"
               "00000000000000000000000000000000000000000000000000000000000000000000000000000000"
               "00000000000000000000000300000000000000000000000000000000000000000000000000000000"
               "00000001000000000000000000000000000000000000000000000000000000000000000200000000"
               "00000000000000000000000000000000000000000000000000000003"));
  ASSERT_TRUE(call);
  EXPECT_EQ(
      args(*call),
      R"({"flags":[true,false],"h":"0xa9059cbb","ids":[{"$uint":"1"},{"$uint":"2"},{"$uint":"3"}],"n":{"$int":"-3"},"s":"héllo"})");
}

TEST(Abi, HostileOffsetsAndLengthsEndQuickly) {
  auto abi = parseAbi(kMixed, "abi");
  // The string's offset points past the data; an array claims 2^32-1 elements.
  EXPECT_FALSE(decodeCall(abi, calldata("a40ece1e" + word("1") + word("ffff") + word("1") +
                                        word("0") + word("100") + word("0"))));
  EXPECT_FALSE(
      decodeCall(abi, calldata("a40ece1e" + word("1") + word("c0") + word("1") + word("0") +
                               word("e0") + word("0") + word("0") + word("ffffffff"))));
  // uint16 above its range, and int8 not sign-extended.
  EXPECT_FALSE(
      decodeCall(abi, calldata("a40ece1e" + word("1") + word("c0") + word("1") + word("0") +
                               word("e0") + word("0") + word("0") + word("1") + word("10000"))));
  EXPECT_FALSE(
      decodeCall(abi, calldata("a40ece1e" + word("80") + word("c0") + word("1") + word("0") +
                               word("e0") + word("0") + word("0") + word("0"))));
  // Nested dynamic arrays whose offsets all alias: each level's eight elements point at the
  // same next level, 8^6 values from under 2 KB. The work budget ends it.
  auto f = parseAbi(R"([{"name":"f","inputs":[{"name":"x","type":"uint8[][][][][][]"}]}])", "abi");
  std::string aliasing = toHex(f[0].selector.data(), 4) + word("20");
  for (int level = 0; level < 5; ++level) {
    aliasing += word("8");
    for (int i = 0; i < 8; ++i) aliasing += word("100");
  }
  aliasing += word("8") + std::string(8 * 64, '0');
  EXPECT_FALSE(decodeCall(f, calldata(aliasing)));
}

TEST(Abi, RefusesWhatItCannotDecode) {
  auto refusal = [](const std::string& abi) -> std::string {
    try {
      parseAbi(abi, "parameters.smartContractInterface");
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal("{").find("not JSON"), std::string::npos);
  EXPECT_NE(refusal("{}").find("JSON array"), std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"f","inputs":[{"name":"x","type":"fixed128x18"}]}])")
                .find("\"fixed128x18\" is not an ABI type"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"name":"f","inputs":[{"name":"x","type":"uint7"}]}])").find("uint7"),
            std::string::npos);
  EXPECT_NE(refusal(R"([{"type":"function","inputs":[]}])").find("needs one"), std::string::npos);
  EXPECT_EQ(refusal(R"([{"type":"constructor","inputs":[{"name":"x","type":"fixed"}]}])"),
            "accepted");  // only functions are decoded
}

}  // namespace
}  // namespace signing
