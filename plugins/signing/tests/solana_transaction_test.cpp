// Solana wire transactions: what the parser refuses, and the fact of a small v0 transaction
// whose accounts come partly through an address lookup table. Signing itself is checked end
// to end by the conformance suite (@turnkey/solana with @solana/web3.js, legacy and v0).
#include <gtest/gtest.h>

#include "chains/solana/solana_transaction.hpp"
#include "signet/error.hpp"

namespace signing {
namespace {

using namespace signet;

// One signature slot, then a message: header {1, 0, readonlyUnsigned}, keys, blockhash,
// instructions, and for v0 the lookups.
Bytes tx(bool v0, const Bytes& afterKeys, size_t keyCount = 2, uint8_t readonlyUnsigned = 1) {
  Bytes t{1};
  t.insert(t.end(), 64, 0);
  if (v0) t.push_back(0x80);
  t.insert(t.end(), {1, 0, readonlyUnsigned, static_cast<uint8_t>(keyCount)});
  for (size_t k = 0; k < keyCount; ++k) t.insert(t.end(), 32, static_cast<uint8_t>(k + 1));
  t.insert(t.end(), 32, 0x42);  // blockhash
  t.insert(t.end(), afterKeys.begin(), afterKeys.end());
  return t;
}

std::string refusal(const Bytes& raw) {
  try {
    parseSolanaTransaction(raw, "parameters.unsignedTransaction");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kInvalidArgument);
    return e.what();
  }
  return "accepted";
}

TEST(SolanaTransaction, RefusesMalformedWireTransactions) {
  auto has = [](const std::string& m, const std::string& part) {
    return m.find(part) != std::string::npos;
  };
  Bytes oneInstruction{1, 1, 1, 0, 0};  // program 1, account 0, no data
  EXPECT_EQ(refusal(tx(false, oneInstruction)), "accepted");
  EXPECT_TRUE(has(refusal(tx(false, {1, 1, 1, 0})), "truncated"));
  Bytes trailing = tx(false, oneInstruction);
  trailing.push_back(0);
  EXPECT_TRUE(has(refusal(trailing), "1 bytes after the message"));
  Bytes twoSlots = tx(false, oneInstruction);
  twoSlots[0] = 2;
  twoSlots.insert(twoSlots.begin() + 1, 64, 0);
  EXPECT_TRUE(has(refusal(twoSlots), "2 signature slots for 1 required"));
  Bytes v1 = tx(true, oneInstruction);
  v1[65] = 0x81;
  EXPECT_TRUE(has(refusal(v1), "message version 1"));
  EXPECT_TRUE(has(refusal(tx(false, {1, 1, 1, 5, 0})), "names account 5 of 2"));
  EXPECT_TRUE(has(refusal(tx(false, {1, 2, 1, 0, 0})), "not a static account key"));
  EXPECT_TRUE(has(refusal(tx(false, oneInstruction, 2, 2)), "signer counts do not fit"));
  Bytes nonCanonical{0x81, 0x00};  // 1 written in two bytes
  EXPECT_TRUE(has(refusal(nonCanonical), "non-canonical compact"));
}

TEST(SolanaTransaction, FactNamesLookedUpAccounts) {
  // Keys: payer (1…), program (2…). Instruction: program 1, accounts [0, 2 (table writable 7),
  // 3 (table readonly 9)]; one table.
  Bytes rest{1, 1, 3, 0, 2, 3, 0, 1};
  rest.insert(rest.end(), 32, 0x55);
  rest.insert(rest.end(), {1, 7, 1, 9});
  auto f = solanaTxFact(parseSolanaTransaction(tx(true, rest), "t"));
  auto accounts = f->getArray("instructions")->getObject(0)->getArray("accounts");
  ASSERT_EQ(accounts->size(), 3u);
  EXPECT_EQ(accounts->getObject(0)->getValue<std::string>("account_key"),
            base58Encode(Bytes(32, 1)));
  EXPECT_TRUE(accounts->getObject(0)->getValue<bool>("signer"));
  EXPECT_TRUE(accounts->getObject(0)->getValue<bool>("writable"));
  EXPECT_EQ(accounts->getObject(1)->getValue<std::string>("account_key"), "ADDRESS_TABLE_LOOKUP");
  EXPECT_TRUE(accounts->getObject(1)->getValue<bool>("writable"));
  EXPECT_FALSE(accounts->getObject(2)->getValue<bool>("writable"));
  auto lookups = f->getArray("instructions")->getObject(0)->getArray("address_table_lookups");
  ASSERT_EQ(lookups->size(), 2u);
  EXPECT_EQ(lookups->getObject(1)->getValue<int>("index"), 9);
  auto tables = f->getArray("address_table_lookups");
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ(tables->getObject(0)->getValue<std::string>("address_table_key"),
            base58Encode(Bytes(32, 0x55)));
  EXPECT_EQ(f->getArray("program_keys")->getElement<std::string>(0), base58Encode(Bytes(32, 2)));
  EXPECT_EQ(f->getArray("transfers")->size(), 0u);
  EXPECT_EQ(f->getValue<std::string>("recent_blockhash"), base58Encode(Bytes(32, 0x42)));
}

}  // namespace
}  // namespace signing
