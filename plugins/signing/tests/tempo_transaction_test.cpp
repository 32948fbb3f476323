// Tempo (0x76) transactions. The vector was computed once with ox/tempo (the serializer
// viem/tempo uses; ox 0.x as installed by the conformance suite): TxEnvelopeTempo.serialize of a
// two-call transaction, its getSignPayload, and the transaction signed by Secp256k1.sign with
// the key 0x46…46. RFC 6979 nonces on both sides make the signed bytes comparable exactly.
#include <gtest/gtest.h>

#include "chains/tempo/tempo_transaction.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

const std::string kUnsigned =
    "76f8ae82a5bf843b9aca008504a817c800830186a0f876f85c9420c00000000000000000000000000000000000"
    "0180b844a9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000"
    "00000000000000000000000000000000000000000000000000000ad79470997970c51812dc3a010c7d01b50e0d"
    "17dc79c80580c08003846b49d200846553f1009420c000000000000000000000000000000000000180c0";
const std::string kSignPayload = "122c889ccccb029e9b1a2a9dfe80f842de307c346dc5a0dd62c105fbeb352540";
const std::string kSigned =
    "76f8f182a5bf843b9aca008504a817c800830186a0f876f85c9420c00000000000000000000000000000000000"
    "0180b844a9059cbb00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000"
    "00000000000000000000000000000000000000000000000000000ad79470997970c51812dc3a010c7d01b50e0d"
    "17dc79c80580c08003846b49d200846553f1009420c000000000000000000000000000000000000180c0b841d5"
    "245f73896448de7ede8200a83d2fb7725fb182e9d1e63550ac877d6ac3acc15bba016b521e3fed514585e93204"
    "9c377728317ab06161517f8590333eb2af1f1c";

std::string refusal(const std::string& hex) {
  try {
    parseTempoTransaction(*fromHex(hex), "parameters.unsignedTransaction");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "accepted";
}

TEST(TempoTransaction, SignsAsOxDoes) {
  TempoTransaction tx = parseTempoTransaction(*fromHex(kUnsigned), "tx");
  EXPECT_EQ(crypto::toHex(tempoSigningDigest(tx)), kSignPayload);
  crypto::SecretBytes key(Bytes(32, 0x46));
  EXPECT_EQ(toHex(tempoSignedTransaction(
                tx, crypto::signSecp256k1Recoverable(key, tempoSigningDigest(tx)))),
            kSigned);
}

TEST(TempoTransaction, FactShowsCallsAndFees) {
  json::Object fact = tempoTxFact(parseTempoTransaction(*fromHex(kUnsigned), "tx"), "0xfrom");
  auto num = [&](const char* k) { return fact->getObject(k)->getValue<std::string>("$uint"); };
  EXPECT_EQ(num("chain_id"), "42431");
  EXPECT_EQ(num("nonce"), "3");
  EXPECT_EQ(num("nonce_key"), "0");
  EXPECT_EQ(num("gas_limit"), "100000");
  EXPECT_EQ(num("max_fee_per_gas"), "20000000000");
  EXPECT_EQ(num("max_priority_fee_per_gas"), "1000000000");
  EXPECT_EQ(num("valid_before"), "1800000000");
  EXPECT_EQ(num("valid_after"), "1700000000");
  EXPECT_EQ(fact->getValue<std::string>("fee_token"), "0x20c0000000000000000000000000000000000001");
  EXPECT_EQ(fact->getValue<std::string>("from"), "0xfrom");
  auto calls = fact->getArray("calls");
  ASSERT_EQ(calls->size(), 2u);
  auto first = calls->getObject(0);
  EXPECT_EQ(first->getValue<std::string>("to"), "0x20c0000000000000000000000000000000000001");
  EXPECT_EQ(first->getValue<std::string>("function_signature"), "0xa9059cbb");
  // The address argument sits at input[34..74], as Turnkey's example policies slice it.
  EXPECT_EQ(first->getValue<std::string>("input").substr(34, 40),
            "70997970c51812dc3a010c7d01b50e0d17dc79c8");
  auto second = calls->getObject(1);
  EXPECT_EQ(second->getValue<std::string>("input"), "0x");
  EXPECT_EQ(second->getValue<std::string>("function_signature"), "");
  EXPECT_EQ(second->getObject("value")->getValue<std::string>("$uint"), "5");
}

TEST(TempoTransaction, RefusesWhatItWillNotSign) {
  EXPECT_NE(refusal(kSigned).find("already signed or carries a key authorization"),
            std::string::npos);
  EXPECT_NE(refusal("02c0").find("starts with type byte 0x76"), std::string::npos);
  EXPECT_NE(refusal("76c180").find("13 unsigned fields, this one 1"), std::string::npos);
  // The unsigned vector with a non-empty authorization list (last item c0 -> c1 80).
  std::string withAuth = kUnsigned.substr(0, kUnsigned.size() - 2) + "c180";
  withAuth.replace(2, 6, "f8af82");  // the list grows by one byte
  EXPECT_NE(refusal(withAuth).find("authorization_list is not empty"), std::string::npos);
  // Twelve fields; then thirteen with no calls at all.
  EXPECT_NE(refusal("76cc01808080c0c08080808080c0").find("13 unsigned fields, this one 12"),
            std::string::npos);
  EXPECT_NE(refusal("76cd01808080c0c0808080808080c0").find("at least one call"), std::string::npos);
}

}  // namespace
}  // namespace signing
