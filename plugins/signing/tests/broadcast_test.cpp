// The building blocks of sending (broadcast/): numbers as the API, JSON-RPC and RLP carry them;
// the batch executor's calldata and EIP-712 digest, the EIP-1559 and EIP-7702 transactions and
// the authorization digest, each against what viem 2.57.20 computes for the same input (the
// values were printed by viem's encodeFunctionData, hashTypedData, signTransaction and
// hashAuthorization); revert data decoded into a revert chain; a Solana transaction given a
// sponsor as fee payer; and the settings' refusals. The chain tests run the same code against
// Hardhat's EVM and litesvm (tests/conformance/broadcast.test.mjs).
#include <gtest/gtest.h>

#include "broadcast/assets.hpp"
#include "broadcast/batch_executor.hpp"
#include "broadcast/eth_tx.hpp"
#include "broadcast/gas_usage.hpp"
#include "broadcast/revert.hpp"
#include "broadcast/settings.hpp"
#include "broadcast/solana_message.hpp"

namespace signing::broadcast {
namespace {

using namespace signet;

Bytes hex(const std::string& s) {
  return *fromHex(s);
}

Bytes word(uint64_t v) {
  Bytes w(32, 0);
  for (int i = 0; i < 8; ++i) w[31 - i] = static_cast<uint8_t>(v >> (8 * i));
  return w;
}

// Error(string) as Solidity encodes a revert reason.
Bytes errorString(const std::string& message) {
  Bytes out = hex("08c379a0");
  Bytes offset = word(32), length = word(message.size());
  out.insert(out.end(), offset.begin(), offset.end());
  out.insert(out.end(), length.begin(), length.end());
  out.insert(out.end(), message.begin(), message.end());
  out.resize(out.size() + (32 - message.size() % 32) % 32, 0);
  return out;
}

const std::vector<EthCall> kCalls = {
    {hex("1111111111111111111111111111111111111111"), word(5), hex("abcd")},
    {hex("2222222222222222222222222222222222222222"), word(0), {}}};

TEST(BroadcastQuantity, NumbersInEveryForm) {
  EXPECT_EQ(toHex(*parseU256("1000")), std::string(60, '0') + "03e8");
  EXPECT_EQ(*parseU256("0x3e8"), *parseU256("1000"));
  EXPECT_TRUE(
      parseU256("115792089237316195423570985008687907853269984665640564039457584007913129639935"));
  EXPECT_FALSE(
      parseU256("115792089237316195423570985008687907853269984665640564039457584007913129639936"));
  EXPECT_FALSE(parseU256("12a"));
  EXPECT_FALSE(parseU256(""));
  EXPECT_FALSE(parseU128("340282366920938463463374607431768211456"));  // 2^128
  EXPECT_EQ(toDecimal(*parseU128("340282366920938463463374607431768211455")),
            "340282366920938463463374607431768211455");
  EXPECT_EQ(toQuantity(Uint128{0}), "0x0");
  EXPECT_EQ(toQuantity(Uint128{255}), "0xff");
  EXPECT_TRUE(minimalBytes(Uint128{0}).empty());
  EXPECT_EQ(*parseFixed("3000.5", 6), Uint128{3'000'500'000});
  EXPECT_FALSE(parseFixed("1.1234567", 6));
  EXPECT_FALSE(parseFixed("1.", 6));
  EXPECT_FALSE(parseFixed("-1", 6));
  EXPECT_EQ(fixedToDecimal(63'000, 6), "0.063");
  EXPECT_EQ(fixedToDecimal(1'000'000'000, 6), "1000");
  // Balances: any width, and the point placed by the asset's decimals.
  EXPECT_EQ(toDecimal(*parseU256(
                "115792089237316195423570985008687907853269984665640564039457584007913129639935")),
            "115792089237316195423570985008687907853269984665640564039457584007913129639935");
  EXPECT_EQ(toDecimal(Bytes(32, 0)), "0");
  EXPECT_EQ(toDecimal(hex("0100")), "256");
  EXPECT_EQ(pointed("1500000000000000000", 18), "1.5");
  EXPECT_EQ(pointed("1", 18), "0.000000000000000001");
  EXPECT_EQ(pointed("250500001", 6), "250.500001");
  EXPECT_EQ(pointed("42", 0), "42");
}

TEST(BroadcastQuantity, UsdCostsRoundUpToTheMicroDollar) {
  // 21,000 gas at 1 gwei is 2.1e13 wei; at 3,000 USD per ETH that is 0.063 USD.
  EXPECT_EQ(usdMicros(Uint128{21'000} * 1'000'000'000, 3'000'000'000, 18), Uint128{63'000});
  EXPECT_EQ(usdMicros(1, 3'000'000'000, 18), Uint128{1});        // a wei still costs something
  EXPECT_EQ(usdMicros(10'000, 150'000'000, 9), Uint128{1'500});  // 10,000 lamports at 150 USD
}

TEST(BatchExecutor, CalldataAndDigestAreViems) {
  EXPECT_EQ(toHex(executeCalldata(kCalls, word(100), hex("0102"))),
            "143ca9b0"
            "0000000000000000000000000000000000000000000000000000000000000060"
            "0000000000000000000000000000000000000000000000000000000000000064"
            "00000000000000000000000000000000000000000000000000000000000001e0"
            "0000000000000000000000000000000000000000000000000000000000000002"
            "0000000000000000000000000000000000000000000000000000000000000040"
            "00000000000000000000000000000000000000000000000000000000000000e0"
            "0000000000000000000000001111111111111111111111111111111111111111"
            "0000000000000000000000000000000000000000000000000000000000000005"
            "0000000000000000000000000000000000000000000000000000000000000060"
            "0000000000000000000000000000000000000000000000000000000000000002"
            "abcd000000000000000000000000000000000000000000000000000000000000"
            "0000000000000000000000002222222222222222222222222222222222222222"
            "0000000000000000000000000000000000000000000000000000000000000000"
            "0000000000000000000000000000000000000000000000000000000000000060"
            "0000000000000000000000000000000000000000000000000000000000000000"
            "0000000000000000000000000000000000000000000000000000000000000002"
            "0102000000000000000000000000000000000000000000000000000000000000");
  auto d = batchDigest(11155111, hex("3333333333333333333333333333333333333333"), kCalls, word(7),
                       word(100));
  EXPECT_EQ(toHex(d.data(), d.size()),
            "21c38d5394d76cd1a93f4708cea726890efeee79ffb92c541a2ffb80bfd2cb75");
  EXPECT_EQ(toHex(nonceCalldata()), "affed0e0");  // nonce()
}

TEST(EthTx, Eip1559AndEip7702AreViems) {
  crypto::SecretBytes key(hex("4646464646464646464646464646464646464646464646464646464646464646"));
  EXPECT_EQ(toHex(ethAddressOf(key)), "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f");
  EthTx tx;
  tx.chainId = 11155111;
  tx.nonce = 3;
  tx.maxPriorityFeePerGas = 1'000'000'000;
  tx.maxFeePerGas = 30'000'000'000;
  tx.gas = 21000;
  tx.to = hex("1111111111111111111111111111111111111111");
  tx.value = word(12345);
  tx.data = hex("abcd");
  EXPECT_EQ(toHex(tx.signedBytes(crypto::signSecp256k1Recoverable(key, tx.signingDigest()))),
            "02f87283aa36a703843b9aca008506fc23ac0082520894111111111111111111111111111111111111"
            "111182303982abcdc001a0ec6e66569d9d09a7eb68c934ac46b91525e463a933184b67c7f8046383f9"
            "b3a5a079cc119b5371c8974e88e5120e0276d86b50be5414fb7dce7f0cbe14b907d1ec");

  auto digest = authorizationDigest(11155111, hex("2222222222222222222222222222222222222222"), 9);
  EXPECT_EQ(toHex(digest.data(), digest.size()),
            "a22679d288c40d0cd9893ba4ee3e89e97838640de325f57d9c68b5cc624d52c0");
  EthTx delegation;
  delegation.chainId = 11155111;
  delegation.nonce = 8;
  delegation.maxPriorityFeePerGas = 1;
  delegation.maxFeePerGas = 2;
  delegation.gas = 100000;
  delegation.to = ethAddressOf(key);
  delegation.value = word(0);
  delegation.authorizations.push_back({11155111, hex("2222222222222222222222222222222222222222"), 9,
                                       crypto::signSecp256k1Recoverable(key, digest)});
  EXPECT_EQ(delegation.type(), 4);
  EXPECT_EQ(
      toHex(delegation.signedBytes(
          crypto::signSecp256k1Recoverable(key, delegation.signingDigest()))),
      "04f8c783aa36a7080102830186a0949d8a62f656a8d1615c1294fd71e9cfb3e4855a4f8080c0f85ff85d83aa"
      "36a79422222222222222222222222222222222222222220901a0f414e036efce68d381e6218aabc2085df1ed"
      "28b83de0af0e22aebaaf13dd876ba00e28e6a27fcd5e2476c0b48f8598d8cf855e1ea0bd3b45473a9d2f016b"
      "82371d01a0c61ef49232729860027c902ba32fe051be6b42b3250e1c48bc25b58aadfd9db4a043416c943c4b"
      "01ea0c966866abb31f1924226f2bcbeeef0aae518920b677b2e1");
}

TEST(Revert, ChainsFromTheOutermostContractToTheInnermost) {
  auto native = revertChain("0xaa", errorString("not today"));
  ASSERT_EQ(native->size(), 1u);
  EXPECT_EQ(native->getObject(0)->getObject("native")->getValue<std::string>("message"),
            "not today");
  EXPECT_EQ(revertSummary(native), "execution reverted: not today");

  Bytes panic = hex("4e487b71");
  Bytes code = word(0x11);  // arithmetic overflow
  panic.insert(panic.end(), code.begin(), code.end());
  EXPECT_EQ(revertChain("0xaa", panic)
                ->getObject(0)
                ->getObject("native")
                ->getValue<std::string>("panicCode"),
            "17");
  EXPECT_EQ(revertChain("0xaa", {})
                ->getObject(0)
                ->getObject("native")
                ->getValue<std::string>("nativeType"),
            "execution_reverted");
  auto unknown = revertChain("0xaa", hex("deadbeef00"));
  EXPECT_EQ(unknown->getObject(0)->getValue<std::string>("errorType"), "unknown");
  EXPECT_EQ(unknown->getObject(0)->getObject("unknown")->getValue<std::string>("selector"),
            "0xdeadbeef");

  // CallFailed(1, 0x11…11, Error("inner")): the batch executor wrapping its call's revert.
  // Head: index, address, offset of reason (three words); then reason's length and its bytes.
  Bytes reason = errorString("inner");
  auto selector = crypto::keccak256("CallFailed(uint256,address,bytes)");
  Bytes wrapped(selector.begin(), selector.begin() + 4);
  for (const Bytes& part :
       {word(1), hex("0000000000000000000000001111111111111111111111111111111111111111"), word(96),
        word(reason.size()), reason})
    wrapped.insert(wrapped.end(), part.begin(), part.end());
  wrapped.resize(wrapped.size() + (32 - reason.size() % 32) % 32, 0);
  auto chain = revertChain("0xaccount", wrapped);
  ASSERT_EQ(chain->size(), 2u);
  EXPECT_EQ(chain->getObject(0)->getValue<std::string>("address"), "0xaccount");
  EXPECT_EQ(chain->getObject(0)->getObject("custom")->getValue<std::string>("errorName"),
            "CallFailed");
  EXPECT_EQ(chain->getObject(1)->getValue<std::string>("address"),
            "0x1111111111111111111111111111111111111111");
  EXPECT_EQ(chain->getObject(1)->getObject("native")->getValue<std::string>("message"), "inner");
}

TEST(SolanaMessage, ASponsorInFrontMovesEveryIndexUpByOne) {
  // One System Program transfer from A to B, A paying: keys [A, B, system program].
  Bytes a(32, 0xa1), b(32, 0xb2), system(32, 0), blockhash(32, 0x77), sponsor(32, 0x55);
  SolanaTransaction tx;
  tx.requiredSignatures = 1;
  tx.readonlySigned = 0;
  tx.readonlyUnsigned = 1;
  tx.accountKeys = {a, b, system};
  tx.recentBlockhash = blockhash;
  tx.instructions.push_back({2, {0, 1}, hex("020000004042000000000000")});
  auto parsed = parseSolanaTransaction(serializeUnsigned(tx), "tx");
  auto sponsored = withFeePayer(parsed, sponsor);
  EXPECT_EQ(sponsored.requiredSignatures, 2u);
  EXPECT_EQ(sponsored.signatureCount, 2u);
  EXPECT_EQ(sponsored.accountKeys[0], sponsor);
  EXPECT_EQ(sponsored.accountKeys[1], a);
  EXPECT_EQ(sponsored.instructions[0].programIndex, 3u);
  EXPECT_EQ(sponsored.instructions[0].accounts, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(sponsored.instructions[0].data, parsed.instructions[0].data);
  auto fresh = withBlockhash(sponsored, Bytes(32, 0x99));
  EXPECT_EQ(fresh.recentBlockhash, Bytes(32, 0x99));
  EXPECT_EQ(fresh.accountKeys, sponsored.accountKeys);
}

TEST(BroadcastSettings, ChainIdsAndRefusalsNameTheField) {
  EXPECT_EQ(*normalizeCaip2("solana:devnet"), "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
  EXPECT_EQ(*normalizeCaip2("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"),
            "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
  EXPECT_EQ(*normalizeCaip2("eip155:1"), "eip155:1");
  EXPECT_FALSE(normalizeCaip2("eip155:01"));
  EXPECT_FALSE(normalizeCaip2("bip122:000000000019d6689c085ae165831e93"));

  auto refusal = [](const std::string& settings) {
    try {
      parseSettings(json::parseObject(settings, "settings"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(R"({"broadcast":{"rpc":{"eip155:1":"http://127.0.0.1:1"}}})")
                .find("broadcast.rpc.eip155:1"),
            std::string::npos)
      << "plain http needs allowInsecureUrls";
  EXPECT_NE(refusal(R"({"broadcast":{"rpc":{"ethereum":"https://node"}}})").find("ethereum"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"broadcast":{"batchExecutor":{"eip155:1":"0x12"}}})")
                .find("batchExecutor.eip155:1"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"broadcast":{"usdPrice":{"eip155:1":"a lot"}}})").find("usdPrice"),
            std::string::npos);
  EXPECT_EQ(refusal(R"({"broadcast":{"solanaCommitment":"processed"}})"),
            "invalid field plugins.settings.signing.broadcast.solanaCommitment: \"processed\" "
            "(confirmed or finalized)");
  auto s = parseSettings(json::parseObject(
      R"({"broadcast":{"rpc":{"solana:devnet":"https://n"},"usdPrice":{"eip155:1":"3000"}}})",
      "settings"));
  EXPECT_EQ(s.rpc.count("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"), 1u);
  EXPECT_EQ(s.solanaCommitment, "confirmed");
  EXPECT_EQ(parseSettings(
                json::parseObject(R"({"broadcast":{"solanaCommitment":"finalized"}})", "settings"))
                .solanaCommitment,
            "finalized");
}

TEST(BroadcastSettings, TheAssetCatalogueIsTheNativeCoinThenTheListedTokens) {
  auto s = parseSettings(json::parseObject(R"({"broadcast":{
      "assets":{"eip155:1":[{"contract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","symbol":"USDC",
                             "name":"USD Coin","decimals":6,"stable":true,"usdPrice":"1"}],
                "solana:mainnet":[{"mint":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
                                   "symbol":"USDC","name":"USD Coin","decimals":6}]},
      "nativeAsset":{"eip155:143":{"symbol":"MON","name":"Monad","decimals":18}}}})",
                                           "settings"));
  auto eth = catalogue(s, "eip155:1");
  ASSERT_EQ(eth.size(), 2u);
  EXPECT_EQ(eth[0].caip19, "eip155:1/slip44:60");
  EXPECT_EQ(eth[0].symbol, "ETH");
  EXPECT_EQ(eth[1].caip19, "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
  EXPECT_TRUE(eth[1].stable);
  EXPECT_EQ(s.usdPrice.at(eth[1].caip19), "1");  // a token's price is keyed by its CAIP-19
  auto sol = catalogue(s, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp");
  ASSERT_EQ(sol.size(), 2u);
  EXPECT_EQ(sol[0].caip19, "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501");
  EXPECT_EQ(sol[0].decimals, 9);
  EXPECT_EQ(
      sol[1].caip19,
      "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
  auto monad = catalogue(s, "eip155:143");
  ASSERT_EQ(monad.size(), 1u);
  EXPECT_EQ(monad[0].caip19, "eip155:143/slip44:60");
  EXPECT_EQ(monad[0].symbol, "MON");
  // A chain whose coin is neither built in nor configured has none: nothing is made up.
  EXPECT_TRUE(catalogue(s, "eip155:4217").empty());

  auto refusal = [](const std::string& assets) {
    try {
      parseSettings(json::parseObject(R"({"broadcast":{"assets":)" + assets + "}}", "settings"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string at = "invalid field plugins.settings.signing.broadcast.assets.";
  EXPECT_EQ(refusal(R"({"eip155:1":[{"contract":"0x12","symbol":"X","name":"X","decimals":6}]})"),
            at + "eip155:1[0].contract: \"0x12\" is not a 0x address");
  EXPECT_EQ(
      refusal(R"({"solana:devnet":[{"contract":"0x12","symbol":"X","name":"X","decimals":6}]})"),
      "missing required field plugins.settings.signing.broadcast.assets.solana:devnet[0].mint");
  EXPECT_EQ(refusal(R"({"solana:devnet":[{"mint":"0OIl","symbol":"X","name":"X","decimals":6}]})"),
            at + "solana:devnet[0].mint: \"0OIl\" is not a base58 Solana address");
  EXPECT_EQ(refusal(R"({"eip155:1":[{"contract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
                                     "symbol":"X","name":"X"}]})"),
            "missing required field plugins.settings.signing.broadcast.assets.eip155:1[0].decimals "
            "(0 to 77)");
  EXPECT_NE(refusal(R"({"eip155:1":[{"contract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
                                     "symbol":"X","name":"X","decimals":78}]})")
                .find("eip155:1[0].decimals"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"eip155:1":[
              {"contract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","symbol":"X","name":"X","decimals":6},
              {"contract":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","symbol":"Y","name":"Y","decimals":6}]})")
                .find("eip155:1[1].contract: \"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48\" is "
                      "listed twice"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"eip155:1":[{"contract":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
                                     "symbol":"X","name":"X","decimals":6,"usdPrice":"cheap"}]})")
                .find("eip155:1[0].usdPrice"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"eip155:1":{"contract":"0x"}})").find("eip155:1: an array"),
            std::string::npos);
}

TEST(BroadcastSettings, AFollowedChainNeedsItsNodeAndAFirstHeight) {
  auto parse = [](const std::string& broadcast) {
    return parseSettings(json::parseObject(R"({"broadcast":)" + broadcast + "}", "settings"));
  };
  auto s = parse(R"({"rpc":{"eip155:1":"https://eth","solana:devnet":"https://sol"},
                     "history":{"eip155:1":{"fromBlock":"19000000"},"solana:devnet":{"fromSlot":7}}})");
  EXPECT_EQ(s.historyFrom.at("eip155:1"), 19'000'000);
  EXPECT_EQ(s.historyFrom.at("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"), 7);
  auto refusal = [&](const std::string& broadcast) {
    try {
      parse(broadcast);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(R"({"history":{"eip155:1":{"fromBlock":0}}})"),
            "invalid field plugins.settings.signing.broadcast.history.eip155:1: no node is "
            "configured for \"eip155:1\" (plugins.settings.signing.broadcast.rpc)");
  EXPECT_EQ(refusal(R"({"rpc":{"eip155:1":"https://eth"},"history":{"eip155:1":{"fromSlot":0}}})"),
            "invalid field plugins.settings.signing.broadcast.history.eip155:1.fromBlock: the "
            "first height to follow, 0 or more");
  EXPECT_EQ(
      refusal(R"({"rpc":{"eip155:1":"https://eth"},"history":{"eip155:1":{"fromBlock":-1}}})"),
      "invalid field plugins.settings.signing.broadcast.history.eip155:1.fromBlock: the "
      "first height to follow, 0 or more");
}

}  // namespace
}  // namespace signing::broadcast
