// Tron transactions and their tron.tx fact, on raw_data_hex vectors published with their
// decoded JSON and txID by TRON node endpoints (a TransferContract from createtransaction and
// a signed TRC-20 TriggerSmartContract from gettransactionbyid): the fields the fact shows are
// the ones the node decoded, and sha256 of the raw data is the node's txID.
#include <gtest/gtest.h>

#include "chains/tron/protobuf.hpp"
#include "chains/tron/tron_transaction.hpp"
#include "signet/crypto.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

const std::string kTransfer =
    "0a0202a22208e216e254e43ee10840c8cbe4e3df2d5a67080112630a2d747970652e676f6f676c65617069732e"
    "636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412320a15415c68cc82c87446f602f019"
    "e5fd797437f5b79cc212154156a6076cd1537fa317c2606e4edfa4acd3e8e92e18a08d06709084e1e3df2d";
const std::string kTrc20 =
    "0a028ad92208eaef69105495eb1540f09fc0cfcd335aae01081f12a9010a31747970652e676f6f676c65617069"
    "732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541495511a493"
    "d8c362be4267224e6d81013a6862ee121541eca9bc828a3005b9a3b909f2cc5c2a54794de05f2244a9059cbb00"
    "000000000000000000004150125bea243a640bf85348873b6c4f3c517aee7a0000000000000000000000000000"
    "0000000000000000000000000000000000017090cbbccfcd33900180c2d72f";

Bytes hex(const std::string& h) {
  return *fromHex(h);
}

std::string refusal(const Bytes& raw) {
  try {
    parseTronTransaction(raw, "parameters.unsignedTransaction");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "accepted";
}

json::Object contractOf(const json::Object& fact) {
  return fact->getArray("contract")->getObject(0);
}

TEST(TronTransaction, TransferContractAsTheNodeDecodedIt) {
  TronTransaction tx = parseTronTransaction(hex(kTransfer), "tx");
  EXPECT_EQ(crypto::toHex(crypto::sha256(tx.raw)),
            "88817b9c6276e3c535e4f8f15baf546292ca6ad9d44a7d97857bd6f8909d63d4");  // its txID
  json::Object fact = tronTxFact(tx);
  EXPECT_EQ(fact->getValue<std::string>("ref_block_bytes"), "02a2");
  EXPECT_EQ(fact->getValue<std::string>("ref_block_hash"), "e216e254e43ee108");
  EXPECT_EQ(fact->getObject("expiration")->getValue<std::string>("$int"), "1571898861000");
  EXPECT_EQ(fact->getObject("timestamp")->getValue<std::string>("$int"), "1571898802704");
  EXPECT_EQ(fact->getObject("fee_limit")->getValue<std::string>("$int"), "0");
  EXPECT_EQ(fact->getValue<std::string>("data"), "");
  auto c = contractOf(fact);
  EXPECT_EQ(c->getValue<std::string>("type"), "TransferContract");
  EXPECT_EQ(c->getValue<std::string>("owner_address"), "TJPpiG4r7K5WPydSvV1GDPwPF6DzKiJnFo");
  EXPECT_EQ(c->getValue<std::string>("to_address"), "THsN1TH3sox1emzc8PxeFHC8HiZHhZ1qDX");
  EXPECT_EQ(c->getObject("amount")->getValue<std::string>("$int"), "100000");
  EXPECT_FALSE(c->has("contract_address"));  // a transfer has none: reading it errors
}

TEST(TronTransaction, Trc20TransferShowsContractAndCalldata) {
  TronTransaction tx = parseTronTransaction(hex(kTrc20), "tx");
  EXPECT_EQ(crypto::toHex(crypto::sha256(tx.raw)),
            "c70b20da8cb8d96a99c1aceb283412acb9dea313a9e467178431a3c6ae8b9f08");
  json::Object fact = tronTxFact(tx);
  EXPECT_EQ(fact->getObject("fee_limit")->getValue<std::string>("$int"), "100000000");
  auto c = contractOf(fact);
  EXPECT_EQ(c->getValue<std::string>("type"), "TriggerSmartContract");
  EXPECT_EQ(c->getValue<std::string>("contract_address"), "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf");
  EXPECT_EQ(c->getValue<std::string>("owner_address"), "TGexEkipwwnskd2rDXWvptwLLhjCTcNeCi");
  EXPECT_EQ(c->getValue<std::string>("data").substr(0, 8), "a9059cbb");
  EXPECT_EQ(c->getObject("call_value")->getValue<std::string>("$int"), "0");
}

TEST(TronTransaction, SignedTransactionWrapsRawDataAndSignature) {
  TronTransaction tx = parseTronTransaction(hex(kTransfer), "tx");
  Bytes signature(65, 0xab);
  Bytes signedTx = tronSignedTransaction(tx, signature);
  auto fields = parseProtoFields(signedTx, "signed");
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].number, 1u);
  EXPECT_EQ(fields[0].bytes, tx.raw);
  EXPECT_EQ(fields[1].number, 2u);
  EXPECT_EQ(fields[1].bytes, signature);
}

TEST(TronTransaction, RefusesWhatAPolicyCouldNotRead) {
  Bytes raw = hex(kTransfer);
  // Truncated in the middle of the contract.
  EXPECT_NE(refusal(Bytes(raw.begin(), raw.end() - 20)).find("past the end"), std::string::npos);
  // A second contract (java-tron accepts exactly one).
  Bytes contract;
  auto fields = parseProtoFields(raw, "raw");
  for (const auto& f : fields)
    if (f.number == 11) contract = f.bytes;
  Bytes two = raw;
  appendProtoBytes(two, 11, contract);
  EXPECT_NE(refusal(two).find("exactly one contract, this one 2"), std::string::npos);
  // Field 12 (scripts) and a duplicated expiration.
  Bytes scripts = raw;
  appendProtoBytes(scripts, 12, {0x01});
  EXPECT_NE(refusal(scripts).find("field 12 (auths or scripts)"), std::string::npos);
  Bytes twice = raw;
  twice.insert(twice.end(), {0x40, 0x01});  // expiration = 1, again
  EXPECT_NE(refusal(twice).find("field 8 appears twice"), std::string::npos);
  // A non-minimal varint (0x80 0x00 for zero).
  Bytes padded = raw;
  padded.insert(padded.end(), {0x70, 0x80, 0x00});
  EXPECT_NE(refusal(padded).find("not minimally encoded"), std::string::npos);
}

TEST(TronTransaction, RefusesUnknownContractsAndMismatchedTypeUrls) {
  auto withContract = [](uint64_t type, const std::string& url, const Bytes& value) {
    Bytes any, contract, raw;
    appendProtoBytes(any, 1, toBytes(url));
    appendProtoBytes(any, 2, value);
    contract.push_back(0x08);
    appendProtoVarint(contract, type);
    appendProtoBytes(contract, 2, any);
    appendProtoBytes(raw, 11, contract);
    return raw;
  };
  std::string base = "type.googleapis.com/protocol.";
  // AccountPermissionUpdateContract (46) is not in the table.
  EXPECT_NE(refusal(withContract(46, base + "AccountPermissionUpdateContract", {}))
                .find("contract type 46 is not one this gateway signs"),
            std::string::npos);
  // A TransferContract whose Any claims to be a TriggerSmartContract.
  EXPECT_NE(refusal(withContract(1, base + "TriggerSmartContract", {})).find("does not match"),
            std::string::npos);
  // A field the schema does not know (TransferContract field 9).
  EXPECT_NE(refusal(withContract(1, base + "TransferContract", {0x48, 0x01}))
                .find("TransferContract has no field 9"),
            std::string::npos);
  // An owner that is not a 21-byte 0x41 address.
  EXPECT_NE(refusal(withContract(1, base + "TransferContract", {0x0a, 0x02, 0x41, 0x00}))
                .find("owner_address is not a Tron address"),
            std::string::npos);
  // Staking: defaults for absent fields, the resource by name.
  json::Object fact = tronTxFact(parseTronTransaction(
      withContract(57, base + "DelegateResourceContract", {0x10, 0x01, 0x18, 0x05}), "tx"));
  auto c = contractOf(fact);
  EXPECT_EQ(c->getValue<std::string>("resource"), "ENERGY");
  EXPECT_EQ(c->getObject("balance")->getValue<std::string>("$int"), "5");
  EXPECT_EQ(c->getValue<bool>("lock"), false);
  EXPECT_EQ(c->getValue<std::string>("receiver_address"), "");
}

}  // namespace
}  // namespace signing
