// Anchor IDLs: reading both generations, the refusals when an interface is written, Anchor's
// default discriminators (checked against published ones: Anchor's `initialize`, Jupiter v6's
// `route` and `sharedAccountsRoute`), and Borsh decoding into parsed_instruction_data,
// including data that must not decode.
#include <gtest/gtest.h>

#include <cstring>

#include "chains/solana/solana_idl.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

// A Jupiter-style router in Anchor 0.30 form: a vector of enum-tagged steps, then amounts.
const char* kRouterIdl = R"({
  "instructions": [{
    "name": "route",
    "discriminator": [229, 23, 203, 151, 122, 227, 173, 42],
    "accounts": [{"name": "token_program"}, {"name": "user_transfer_authority", "signer": true}],
    "args": [
      {"name": "route_plan", "type": {"vec": {"defined": {"name": "RoutePlanStep"}}}},
      {"name": "in_amount", "type": "u64"},
      {"name": "quoted_out_amount", "type": "u64"},
      {"name": "slippage_bps", "type": "u16"},
      {"name": "platform_fee_bps", "type": "u8"}]}],
  "types": [
    {"name": "RoutePlanStep", "type": {"kind": "struct", "fields": [
      {"name": "swap", "type": {"defined": {"name": "Swap"}}},
      {"name": "percent", "type": "u8"},
      {"name": "input_index", "type": "u8"},
      {"name": "output_index", "type": "u8"}]}},
    {"name": "Swap", "type": {"kind": "enum", "variants": [
      {"name": "Saber"},
      {"name": "Whirlpool", "fields": [{"name": "a_to_b", "type": "bool"}]}]}}]
})";

void le(Bytes& out, unsigned __int128 v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Bytes routeData(uint64_t inAmount) {
  Bytes d = *fromHex("e517cb977ae3ad2a");
  le(d, 2, 4);                          // two steps
  d.insert(d.end(), {0, 60, 0, 1});     // Saber, 60%, 0 -> 1
  d.insert(d.end(), {1, 1, 40, 0, 1});  // Whirlpool{a_to_b: true}, 40%, 0 -> 1
  le(d, inAmount, 8);
  le(d, 1234, 8);
  le(d, 50, 2);
  d.push_back(0);
  return d;
}

const std::vector<std::string> kAccounts{"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
                                         "ADDRESS_TABLE_LOOKUP", "Extra111"};

std::string refusal(const std::string& idl) {
  try {
    parseSolanaIdl(idl, "parameters.smartContractInterface");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << idl;
  return "";
}

TEST(SolanaIdl, DecodesARouteIntoNamedAccountsAndArguments) {
  auto idl = parseSolanaIdl(kRouterIdl, "idl");
  auto parsed = decodeSolanaInstruction(idl, routeData(995500000), kAccounts);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(
      json::stringify(parsed),
      R"({"discriminator":"e517cb977ae3ad2a","instruction_name":"route",)"
      R"("named_accounts":{"$map":{"token_program":"TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",)"
      R"("user_transfer_authority":"ADDRESS_TABLE_LOOKUP"}},)"
      R"("program_call_args":{"$map":{"in_amount":{"$uint":"995500000"},)"
      R"("platform_fee_bps":0,"quoted_out_amount":{"$uint":"1234"},)"
      R"("route_plan":[{"$map":{"input_index":0,"output_index":1,"percent":60,)"
      R"("swap":{"$map":{"Saber":{"$map":{}}}}}},)"
      R"({"$map":{"input_index":0,"output_index":1,"percent":40,)"
      R"("swap":{"$map":{"Whirlpool":{"$map":{"a_to_b":true}}}}}}],"slippage_bps":50}}})");
}

TEST(SolanaIdl, DataThatDoesNotDecodeGivesNoParsedData) {
  auto idl = parseSolanaIdl(kRouterIdl, "idl");
  Bytes data = routeData(1);
  EXPECT_TRUE(decodeSolanaInstruction(idl, data, kAccounts));
  Bytes trailing = data;
  trailing.push_back(0);
  EXPECT_FALSE(decodeSolanaInstruction(idl, trailing, kAccounts));
  EXPECT_FALSE(decodeSolanaInstruction(idl, Bytes(data.begin(), data.end() - 1), kAccounts));
  Bytes badBool = data;
  badBool[8 + 4 + 4 + 1] = 2;  // a_to_b
  EXPECT_FALSE(decodeSolanaInstruction(idl, badBool, kAccounts));
  Bytes badVariant = data;
  badVariant[8 + 4 + 4] = 7;
  EXPECT_FALSE(decodeSolanaInstruction(idl, badVariant, kAccounts));
  Bytes otherDiscriminator = data;
  otherDiscriminator[0] ^= 1;
  EXPECT_FALSE(decodeSolanaInstruction(idl, otherDiscriminator, kAccounts));
  EXPECT_FALSE(decodeSolanaInstruction(idl, data, {kAccounts[0]}));  // too few accounts
  // A vector claiming 2^32-1 elements is refused by the budget, not allocated.
  Bytes huge = *fromHex("e517cb977ae3ad2a");
  le(huge, 0xffffffff, 4);
  EXPECT_FALSE(decodeSolanaInstruction(idl, huge, kAccounts));
}

TEST(SolanaIdl, LegacyIdlsGetAnchorsDefaultDiscriminators) {
  auto idl = parseSolanaIdl(R"({
    "instructions": [
      {"name": "initialize", "accounts": [{"name": "state", "isMut": true, "isSigner": false},
         {"name": "group", "accounts": [{"name": "inner"}, {"name": "other"}]}],
       "args": [{"name": "owner", "type": "publicKey"}, {"name": "label", "type": "string"},
                {"name": "memo", "type": "bytes"}, {"name": "limit", "type": {"option": "i64"}},
                {"name": "delta", "type": "i64"}, {"name": "big", "type": "u128"},
                {"name": "pair", "type": {"defined": "Pair"}}, {"name": "ratio", "type": "f64"},
                {"name": "fixed", "type": {"array": ["u8", 2]}}, {"name": "alias", "type": {"defined": "Amount"}}]},
      {"name": "sharedAccountsRoute", "accounts": [], "args": []}],
    "types": [{"name": "Pair", "type": {"kind": "struct", "fields": ["u8", "bool"]}},
              {"name": "Amount", "type": {"kind": "alias", "value": "u16"}}]
  })",
                            "idl");
  ASSERT_EQ(idl.instructions.size(), 2u);
  EXPECT_EQ(toHex(idl.instructions[0].discriminator), "afaf6d1f0d989bed");
  EXPECT_EQ(toHex(idl.instructions[1].discriminator), "c1209b3341d69c81");
  EXPECT_EQ(idl.instructions[0].accounts, (std::vector<std::string>{"state", "inner", "other"}));

  Bytes d = idl.instructions[0].discriminator;
  Bytes owner(32, 0);
  owner[31] = 1;
  d.insert(d.end(), owner.begin(), owner.end());
  le(d, 2, 4);
  d.insert(d.end(), {'h', 'i'});
  le(d, 2, 4);
  d.insert(d.end(), {0xab, 0xcd});
  d.push_back(0);                                                       // limit: None
  le(d, static_cast<unsigned __int128>(static_cast<__int128>(-5)), 8);  // delta
  le(d, (static_cast<unsigned __int128>(1) << 100) + 7, 16);            // big
  d.insert(d.end(), {9, 1});                                            // pair (9, true)
  double ratio = 1.5;
  Bytes r(8);
  std::memcpy(r.data(), &ratio, 8);
  d.insert(d.end(), r.begin(), r.end());
  d.insert(d.end(), {3, 4});  // fixed
  le(d, 65535, 2);            // alias
  auto parsed = decodeSolanaInstruction(idl, d, {"S", "I", "O"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(json::stringify(parsed->getObject("program_call_args")),
            R"({"$map":{"alias":65535,"big":{"$uint":"1267650600228229401496703205383"},)"
            R"("delta":{"$int":"-5"},"fixed":[3,4],"label":"hi","limit":"","memo":"abcd",)"
            R"("owner":"11111111111111111111111111111112","pair":[9,true],"ratio":"1.5"}})");
}

TEST(SolanaIdl, RefusesWhatCouldNotBeDecodedWhenWritten) {
  EXPECT_NE(refusal(R"({"instructions":[]})").find("types"), std::string::npos);
  EXPECT_NE(
      refusal(R"({"instructions":[{"name":"a","args":[{"name":"x","type":"u7"}]}],"types":[]})")
          .find("instructions[0].args[0].type: unknown IDL type \"u7\""),
      std::string::npos);
  EXPECT_NE(
      refusal(
          R"({"instructions":[{"name":"a","args":[{"name":"x","type":{"defined":"Nope"}}]}],"types":[]})")
          .find("names type \"Nope\", which is not in types"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"instructions":[],"types":[
      {"name":"A","type":{"kind":"struct","fields":[{"name":"b","type":{"vec":{"defined":"B"}}}]}},
      {"name":"B","type":{"kind":"struct","fields":[{"name":"a","type":{"defined":"A"}}]}}]})")
                .find("contains itself"),
            std::string::npos);
  EXPECT_NE(
      refusal(
          R"({"instructions":[],"types":[{"name":"A","type":{"kind":"struct"}},{"name":"A","type":{"kind":"struct"}}]})")
          .find("types[1].name: type \"A\" is defined twice"),
      std::string::npos);
  EXPECT_NE(
      refusal(
          R"({"instructions":[{"name":"a","discriminator":[1]},{"name":"b","discriminator":[1]}],"types":[]})")
          .find("instructions[1].discriminator: instruction \"b\" repeats another's discriminator "
                "01"),
      std::string::npos);
  EXPECT_NE(refusal(R"({"instructions":[{"name":"a","discriminator":[256]}],"types":[]})")
                .find("discriminator[0]: must be a byte"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"instructions":[],"types":[{"name":"E","type":{"kind":"union"}}]})")
                .find("\"union\" (expected struct, enum or alias)"),
            std::string::npos);
}

}  // namespace
}  // namespace signing
