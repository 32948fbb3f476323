// sign_transaction and the examples of Turnkey's policy documentation (tkhq/docs
// features/policies) that read transaction facts, through a real gateway: an allowlist with a
// named approver and without consensus, the selector, chain id and nonce, WETH ABI arguments
// (and no ABI → error), batched calls as lists and flat address arrays, Solana, Bitcoin PSBT
// outputs and fee, Tron contracts, and Tempo calls and private key tags; plus smart contract
// interface storage and its refusals. Each signed transaction's signature is verified under the
// account's key.
#include "chains/bitcoin/bitcoin_psbt.hpp"
#include "chains/ethereum/rlp.hpp"
#include "chains/tron/protobuf.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

using signing::rlpDecode;
using signing::rlpEncodeList;
using signing::rlpEncodeString;
using signing::rlpEncodeUint;

class TransactionPolicyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(TransactionPolicyTest);

const std::string kA = "0x00000000000000000000000000000000000000aa";
const std::string kB = "0x00000000000000000000000000000000000000bb";
const std::string kWeth = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";  // checksum case
const std::string kDst = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7";

Bytes uintBytes(uint64_t v) {
  Bytes b;
  for (; v > 0; v >>= 8) b.insert(b.begin(), static_cast<uint8_t>(v & 0xff));
  return b;
}

// An unsigned EIP-1559 transaction, hex with 0x (as ethers' unsignedSerialized).
std::string eip1559(const std::string& to, const std::string& dataHex, uint64_t chainId = 1,
                    uint64_t nonce = 0, uint64_t value = 0) {
  std::vector<Bytes> f{rlpEncodeUint(uintBytes(chainId)),
                       rlpEncodeUint(uintBytes(nonce)),
                       rlpEncodeUint(uintBytes(1000000000)),
                       rlpEncodeUint(uintBytes(30000000000)),
                       rlpEncodeUint(uintBytes(100000)),
                       rlpEncodeString(*fromHex(to)),
                       rlpEncodeUint(uintBytes(value)),
                       rlpEncodeString(*fromHex(dataHex)),
                       rlpEncodeList({})};
  Bytes tx{0x02};
  Bytes body = rlpEncodeList(f);
  tx.insert(tx.end(), body.begin(), body.end());
  return "0x" + toHex(tx);
}

std::string word(const std::string& hex) {
  return std::string(64 - hex.size(), '0') + hex;
}
std::string addressWord(const std::string& address) {
  return word(asciiLower(address.substr(2)));
}
std::string uintWord(uint64_t v) {
  std::string h = toHex(uintBytes(v));
  return word(h.empty() ? "0" : h);
}

json::Object txParams(const std::string& signWith, const std::string& unsignedTx,
                      const std::string& type = "TRANSACTION_TYPE_ETHEREUM") {
  json::Object p = json::object();
  p->set("signWith", signWith);
  p->set("unsignedTransaction", unsignedTx);
  p->set("type", type);
  return p;
}

struct Fixture {
  explicit Fixture(TestGateway& gw) : o(gw) {
    auto created = resultOf(
        o.root().submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", o.org(),
            walletParams("w",
                         {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
                          account("CURVE_ED25519", "m/44'/501'/0'/0'", "ADDRESS_FORMAT_SOLANA"),
                          account("CURVE_SECP256K1", "m/44'/195'/0'/0/0", "ADDRESS_FORMAT_TRON"),
                          account("CURVE_SECP256K1", "m/84'/0'/0'/0/0",
                                  "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH"),
                          account("CURVE_SECP256K1", "m/86'/0'/0'/0/0",
                                  "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR")})),
        "createWalletResult");
    walletId = created->getValue<std::string>("walletId");
    address = created->getArray("addresses")->getElement<std::string>(0);
    solana = created->getArray("addresses")->getElement<std::string>(1);
    tron = created->getArray("addresses")->getElement<std::string>(2);
    segwit = created->getArray("addresses")->getElement<std::string>(3);
    taproot = created->getArray("addresses")->getElement<std::string>(4);
  }
  json::Object sign(const std::string& userId, const std::string& unsignedTx) {
    return o.as(userId).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", o.org(),
                               txParams(address, unsignedTx));
  }
  json::Object signTron(const std::string& userId, const std::string& rawDataHex) {
    return o.as(userId).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", o.org(),
                               txParams(tron, rawDataHex, "TRANSACTION_TYPE_TRON"));
  }
  json::Object signSolana(const std::string& userId, const std::string& unsignedTx) {
    return o.as(userId).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", o.org(),
                               txParams(solana, unsignedTx, "TRANSACTION_TYPE_SOLANA"));
  }
  std::string contractInterface(
      const std::string& contract, const std::string& abi,
      const std::string& type = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM") {
    json::Object p = json::object();
    p->set("smartContractAddress", contract);
    p->set("smartContractInterface", abi);
    p->set("type", type);
    p->set("label", "abi of " + contract);
    return resultOf(o.root().submit("create_smart_contract_interface",
                                    "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", o.org(), p),
                    "createSmartContractInterfaceResult")
        ->getValue<std::string>("smartContractInterfaceId");
  }
  Org o;
  void dropPolicy(const std::string& id) {
    json::Object p = json::object();
    p->set("policyId", id);
    EXPECT_EQ(status(o.root().submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", o.org(), p)),
              kCompleted);
  }
  // The public key of one of the wallet's accounts, from get_wallet_account.
  Bytes publicKeyOf(const std::string& account) {
    json::Object q = json::object();
    q->set("organizationId", o.org());
    q->set("walletId", walletId);
    q->set("address", account);
    return *fromHex(o.root()
                        .query("get_wallet_account", q)
                        ->getObject("account")
                        ->getValue<std::string>("publicKey"));
  }
  std::string walletId, address, solana, tron, segwit, taproot;
};

TEST_P(TransactionPolicyTest, SignsEthereumTransactionsAndRefusesWhatItCannotSign) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  std::string unsignedTx = eip1559(kA, "0x", 11155111, 7, 1000);
  auto signedHex = resultOf(f.sign(gw.root().userId, unsignedTx), "signTransactionResult")
                       ->getValue<std::string>("signedTransaction");
  // Hex without 0x: the unsigned fields, then yParity, r and s; the signature verifies under
  // the account's public key over keccak256 of the unsigned bytes.
  auto raw = *fromHex(signedHex);
  EXPECT_NE(signedHex.rfind("0x", 0), 0u);
  ASSERT_EQ(raw.at(0), 0x02);
  auto top = rlpDecode(raw.data() + 1, raw.size() - 1, "signed");
  auto unsignedRaw = *fromHex(unsignedTx);
  auto unsignedTop = rlpDecode(unsignedRaw.data() + 1, unsignedRaw.size() - 1, "unsigned");
  ASSERT_EQ(top.items.size(), 12u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(top.items[i].encoded, unsignedTop.items[i].encoded);
  crypto::EcdsaSignature sig{};
  auto r = top.items[10].bytes, s = top.items[11].bytes;
  std::copy(r.begin(), r.end(), sig.r.end() - static_cast<std::ptrdiff_t>(r.size()));
  std::copy(s.begin(), s.end(), sig.s.end() - static_cast<std::ptrdiff_t>(s.size()));
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, f.publicKeyOf(f.address),
                                  crypto::keccak256(unsignedRaw.data(), unsignedRaw.size()), sig));

  // Refusals, each naming what is wrong; none signs anything.
  auto refused = [&](const json::Object& p) {
    return refusalOf([&] {
      return gw.rootClient().submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
                                    f.o.org(), p);
    });
  };
  EXPECT_NE(refused(txParams(f.address, "0xzz")).find("not hex"), std::string::npos);
  EXPECT_NE(refused(txParams(f.address, "0x" + signedHex)).find("already signed"),
            std::string::npos);
  EXPECT_NE(refused(txParams(f.address, unsignedTx, "TRANSACTION_TYPE_BITCOIN")).find("not a PSBT"),
            std::string::npos);
  EXPECT_NE(refused(txParams(f.address, unsignedTx, "ETHEREUM")).find("\"ETHEREUM\""),
            std::string::npos);
  EXPECT_NE(refused(txParams(f.solana, unsignedTx)).find("CURVE_ED25519"), std::string::npos);
  EXPECT_NE(refused(txParams("0x0000000000000000000000000000000000000001", unsignedTx))
                .find("is no wallet account address"),
            std::string::npos);
}

// An allowlist whose consensus names U1; the same condition with no consensus.
TEST_P(TransactionPolicyTest, Case1And2Allowlist) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u1 = f.o.user("U1"), u2 = f.o.user("U2");
  f.o.policy("U1 may send to A", "EFFECT_ALLOW", "eth.tx.to == '" + kA + "'",
             "approvers.any(user, user.id == '" + u1 + "')");
  EXPECT_EQ(status(f.sign(u1, eip1559(kA, "0x"))), kCompleted);
  auto toB = f.sign(u1, eip1559(kB, "0x"));
  EXPECT_EQ(status(toB), kFailed);
  EXPECT_NE(failureOf(toB).find("implicit deny"), std::string::npos) << failureOf(toB);
  auto byU2 = f.sign(u2, eip1559(kA, "0x", 1, 1));
  EXPECT_EQ(status(byU2), kConsensus);
  EXPECT_FALSE(byU2->getObject("result")->has("signTransactionResult"));
  auto approved = f.o.vote(u1, byU2);
  EXPECT_EQ(status(approved), kCompleted);
  EXPECT_EQ(resultOf(approved, "signTransactionResult")
                ->getValue<std::string>("signedTransaction")
                .substr(0, 2),
            "02");

  // With no consensus, any user may send to B.
  f.o.policy("anyone may send to B", "EFFECT_ALLOW", "eth.tx.to == '" + kB + "'");
  EXPECT_EQ(status(f.sign(u2, eip1559(kB, "0x"))), kCompleted);
  EXPECT_EQ(status(f.sign(u2, eip1559(kA, "0x", 1, 2))), kConsensus);
}

// The ERC-20 transfer selector by slicing, the chain id and the nonce as numbers.
TEST_P(TransactionPolicyTest, Case15SelectorChainIdAndNonce) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  f.o.policy("ERC-20 transfers on C", "EFFECT_ALLOW",
             "eth.tx.to == '" + kA + "' && eth.tx.data[0..10] == '0xa9059cbb'");
  std::string args = addressWord(kDst) + uintWord(5);
  EXPECT_EQ(status(f.sign(u, eip1559(kA, "0xa9059cbb" + args))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(kA, "0x095ea7b3" + args))), kFailed);  // approve

  // from is the signer's address, lowercase (the account's is EIP-55 checksummed).
  f.o.policy("sepolia", "EFFECT_ALLOW",
             "eth.tx.chain_id == 11155111 && eth.tx.from == '" + asciiLower(f.address) + "'");
  EXPECT_EQ(status(f.sign(u, eip1559(kB, "0x", 11155111))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(kB, "0x", 1))), kFailed);

  f.o.policy("early nonces", "EFFECT_ALLOW", "eth.tx.nonce <= 3 && eth.tx.chain_id == 10");
  EXPECT_EQ(status(f.sign(u, eip1559(kB, "0x", 10, 3))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(kB, "0x", 10, 4))), kFailed);
}

const char* kWethAbi =
    R"([{"constant":false,"inputs":[{"name":"dst","type":"address"},{"name":"wad","type":"uint256"}],"name":"transfer","outputs":[{"name":"","type":"bool"}],"payable":false,"stateMutability":"nonpayable","type":"function"},
        {"constant":false,"inputs":[],"name":"deposit","outputs":[],"payable":true,"stateMutability":"payable","type":"function"},
        {"anonymous":false,"inputs":[{"indexed":true,"name":"src","type":"address"},{"indexed":true,"name":"dst","type":"address"},{"indexed":false,"name":"wad","type":"uint256"}],"name":"Transfer","type":"event"}])";

// Arguments decoded with the contract's ABI; without an ABI the policy errors.
TEST_P(TransactionPolicyTest, Case16AbiArguments) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  f.contractInterface(kWeth, kWethAbi);
  f.o.policy("WETH under 1e18 to dst", "EFFECT_ALLOW",
             "eth.tx.contract_call_args['wad'] < 1000000000000000000 && "
             "eth.tx.contract_call_args['dst'] == '" +
                 kDst + "'");
  auto transfer = [&](const std::string& contract, uint64_t wad) {
    return f.sign(u, eip1559(contract, "0xa9059cbb" + addressWord(kDst) + uintWord(wad)));
  };
  EXPECT_EQ(status(transfer(kWeth, 500000000000000000)), kCompleted);
  EXPECT_EQ(status(transfer(kWeth, 2000000000000000000)), kFailed);
  // The same calldata to a contract with no ABI: contract_call_args is absent, an error.
  auto noAbi = transfer(kA, 5);
  EXPECT_EQ(status(noAbi), kFailed);
  EXPECT_NE(failureOf(noAbi).find("contract_call_args"), std::string::npos) << failureOf(noAbi);

  f.o.policy("transfer by name", "EFFECT_ALLOW",
             "eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'");
  EXPECT_EQ(status(transfer(kWeth, 2000000000000000000)), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(kWeth, "0xd0e30db0"))), kFailed);  // deposit()
}

const char* kBatchAbi =
    R"([{"type":"function","name":"executeBatch","inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"}]}]},
        {"type":"function","name":"allow","inputs":[{"name":"accounts","type":"address[]"}]}])";

// executeBatch((address,uint256,bytes)[]) with `calls` as given.
std::string executeBatch(const std::vector<std::pair<std::string, uint64_t>>& calls) {
  std::string heads, tails;
  size_t offset = 32 * calls.size();
  for (const auto& [target, value] : calls) {
    heads += uintWord(offset);
    std::string tail = addressWord(target) + uintWord(value) + uintWord(96) + uintWord(0);
    offset += tail.size() / 2;
    tails += tail;
  }
  return "0x34fcd5be" + uintWord(32) + uintWord(calls.size()) + heads + tails;
}

// allow(address[]).
std::string allow(const std::vector<std::string>& accounts) {
  std::string data = "0x" + toHex(crypto::keccak256("allow(address[])").data(), 4) + uintWord(32) +
                     uintWord(accounts.size());
  for (const auto& a : accounts) data += addressWord(a);
  return data;
}

// Batched calls are lists of tuples read by position; a flat address array.
TEST_P(TransactionPolicyTest, Case17BatchedCallsAndFlatArrays) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  const std::string wallet = "0x00000000000000000000000000000000000000cc";
  f.contractInterface(wallet, kBatchAbi);
  f.o.policy("two calls to A without value", "EFFECT_ALLOW",
             "eth.tx.function_name == 'executeBatch' && "
             "eth.tx.contract_call_args['calls'].count() <= 2 && "
             "eth.tx.contract_call_args['calls'].all(call, call[0] == '" +
                 kA + "' && call[1] == 0)");
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, executeBatch({{kA, 0}, {kA, 0}})))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, executeBatch({{kA, 0}, {kA, 0}, {kA, 0}})))), kFailed);
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, executeBatch({{kA, 0}, {kB, 0}})))), kFailed);
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, executeBatch({{kA, 1}})))), kFailed);

  // A tuple is a list: reading it by component name is an error, not a match.
  std::string byName =
      f.o.policy("by name", "EFFECT_ALLOW",
                 "eth.tx.contract_call_args['calls'].all(call, call['target'] == '" + kB + "')");
  auto named = f.sign(u, eip1559(wallet, executeBatch({{kB, 0}})));
  EXPECT_EQ(status(named), kFailed);
  bool sawError = false;
  json::Object q = json::object();
  q->set("organizationId", f.o.org());
  q->set("activityId", named->getValue<std::string>("id"));
  auto evaluations =
      gw.rootClient().query("get_policy_evaluations", q)->getArray("policyEvaluations");
  for (size_t i = 0; i < evaluations->size(); ++i) {
    auto outcomes = evaluations->getObject(static_cast<unsigned>(i))->getArray("policyEvaluations");
    for (size_t k = 0; outcomes && k < outcomes->size(); ++k) {
      auto e = outcomes->getObject(static_cast<unsigned>(k));
      if (e->getValue<std::string>("policyId") == byName)
        sawError = e->getValue<std::string>("outcome") == "OUTCOME_ERROR";
    }
  }
  EXPECT_TRUE(sawError) << json::stringify(evaluations);

  f.o.policy("allow list members", "EFFECT_ALLOW",
             "eth.tx.function_name == 'allow' && eth.tx.contract_call_args['accounts'].all(addr, "
             "addr in ['" +
                 kA + "', '" + kB + "'])");
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, allow({kA, kB, kA})))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(wallet, allow({kA, wallet})))), kFailed);
}

// A Solana wire transaction, built by hand: one signer (the payer, writable), then `writable`
// other writable keys, then read-only keys; zeroed signature slot; v0 when `lookups` is set.
struct SolanaLookupSpec {
  Bytes table;
  std::vector<uint8_t> writable, readonly;
};
struct SolanaInstructionSpec {
  uint8_t program;
  std::vector<uint8_t> accounts;
  Bytes data;
};
std::string solanaTx(const std::vector<Bytes>& keys, uint8_t writable,
                     const std::vector<SolanaInstructionSpec>& instructions,
                     const std::optional<std::vector<SolanaLookupSpec>>& lookups = std::nullopt) {
  Bytes m;
  auto put = [&](const Bytes& b) { m.insert(m.end(), b.begin(), b.end()); };
  auto small = [&](size_t n) { m.push_back(static_cast<uint8_t>(n)); };  // compact-u16 < 128
  if (lookups) m.push_back(0x80);
  m.insert(m.end(), {1, 0, static_cast<uint8_t>(keys.size() - 1 - writable)});
  small(keys.size());
  for (const auto& k : keys) put(k);
  put(Bytes(32, 0x42));  // recent blockhash
  small(instructions.size());
  for (const auto& i : instructions) {
    m.push_back(i.program);
    small(i.accounts.size());
    put(Bytes(i.accounts.begin(), i.accounts.end()));
    small(i.data.size());
    put(i.data);
  }
  if (lookups) {
    small(lookups->size());
    for (const auto& l : *lookups) {
      put(l.table);
      small(l.writable.size());
      put(Bytes(l.writable.begin(), l.writable.end()));
      small(l.readonly.size());
      put(Bytes(l.readonly.begin(), l.readonly.end()));
    }
  }
  Bytes tx{1};
  tx.insert(tx.end(), 64, 0);
  tx.insert(tx.end(), m.begin(), m.end());
  return toHex(tx);
}

// u32 LE 2 then u64 LE lamports (System Program Transfer); SPL Transfer (3) and
// TransferChecked (12, then decimals).
Bytes littleEndian(uint8_t tag, size_t tagBytes, uint64_t amount) {
  Bytes d(tagBytes, 0);
  d[0] = tag;
  for (int i = 0; i < 8; ++i) d.push_back(static_cast<uint8_t>(amount >> (8 * i)));
  return d;
}

struct SolanaKeys {
  explicit SolanaKeys(const std::string& payerAddress) : payer(*base58Decode(payerAddress)) {}
  Bytes payer,
      system = Bytes(32, 0), token = *base58Decode("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
      r = Bytes(32, 0x11), bad = Bytes(32, 0x22), mint = Bytes(32, 0x33), other = Bytes(32, 0x44),
      table = Bytes(32, 0x55);
  std::string b58(const Bytes& k) const { return base58Encode(k); }
  // payer -> to, lamports
  std::string transfer(const Bytes& to, uint64_t lamports) const {
    return solanaTx({payer, to, system}, 1, {{2, {0, 1}, littleEndian(2, 4, lamports)}});
  }
  std::string noTransfer() const { return solanaTx({payer, other}, 0, {{1, {0}, Bytes{1, 2, 3}}}); }
};

TEST_P(TransactionPolicyTest, Case19SolanaTransfersAndLookups) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  SolanaKeys k(f.solana);
  auto sign = [&](const std::string& tx) { return f.signSolana(u, tx); };

  // all() over no transfers is true; count() == 1 is not.
  std::string all = f.o.policy("only to R", "EFFECT_ALLOW",
                               "solana.tx.transfers.all(t, t.to == '" + k.b58(k.r) + "')");
  auto toR = sign(k.transfer(k.r, 5000));
  EXPECT_EQ(status(toR), kCompleted) << json::stringify(toR);
  auto signedTx =
      *fromHex(resultOf(toR, "signTransactionResult")->getValue<std::string>("signedTransaction"));
  EXPECT_NE(Bytes(signedTx.begin() + 1, signedTx.begin() + 65), Bytes(64, 0));
  EXPECT_EQ(status(sign(k.noTransfer())), kCompleted);
  EXPECT_EQ(status(sign(k.transfer(k.bad, 5000))), kFailed);
  f.dropPolicy(all);
  std::string one =
      f.o.policy("exactly one to R", "EFFECT_ALLOW",
                 "solana.tx.transfers.count() == 1 && solana.tx.transfers[0].to == '" + k.b58(k.r) +
                     "' && solana.tx.transfers[0].amount < 10000");
  EXPECT_EQ(status(sign(k.transfer(k.r, 5000))), kCompleted);
  EXPECT_EQ(status(sign(k.transfer(k.r, 20000))), kFailed);
  EXPECT_EQ(status(sign(k.noTransfer())), kFailed);
  f.dropPolicy(one);

  // DENY wins over a broad ALLOW: a transfer to BAD, any lookup table, a looked-up account.
  f.o.policy("sign anything", "EFFECT_ALLOW", "activity.action == 'SIGN'");
  std::string denyBad = f.o.policy("never to BAD", "EFFECT_DENY",
                                   "solana.tx.transfers.any(t, t.to == '" + k.b58(k.bad) + "')");
  EXPECT_EQ(status(sign(k.transfer(k.r, 1))), kCompleted);
  EXPECT_EQ(status(sign(k.transfer(k.bad, 1))), kFailed);
  f.dropPolicy(denyBad);
  // payer, system program static; the recipient through the table (writable index 7).
  std::string viaTable = solanaTx({k.payer, k.system}, 0, {{1, {0, 2}, littleEndian(2, 4, 1)}},
                                  std::vector<SolanaLookupSpec>{{k.table, {7}, {}}});
  std::string v0Plain = solanaTx({k.payer, k.r, k.system}, 1, {{2, {0, 1}, littleEndian(2, 4, 1)}},
                                 std::vector<SolanaLookupSpec>{});
  std::string denyLookedUp = f.o.policy(
      "no looked-up accounts", "EFFECT_DENY",
      "solana.tx.instructions.any(i, i.accounts.any(a, a.account_key == 'ADDRESS_TABLE_LOOKUP'))");
  EXPECT_EQ(status(sign(v0Plain)), kCompleted);
  auto looked = sign(viaTable);
  EXPECT_EQ(status(looked), kFailed);
  EXPECT_NE(failureOf(looked).find("no looked-up accounts"), std::string::npos);
  f.dropPolicy(denyLookedUp);
  f.o.policy("no lookup tables", "EFFECT_DENY", "solana.tx.address_table_lookups.count() > 0");
  EXPECT_EQ(status(sign(v0Plain)), kCompleted);
  EXPECT_EQ(status(sign(viaTable)), kFailed);

  // A program id resolved through a table cannot be named by policies: refused.
  std::string programViaTable = solanaTx({k.payer}, 0, {{1, {0}, Bytes{}}},
                                         std::vector<SolanaLookupSpec>{{k.table, {}, {3}}});
  // (As root: for the user, the erroring DENY above already fails it, closed.)
  EXPECT_EQ(status(sign(programViaTable)), kFailed);
  EXPECT_NE(refusalOf([&] {
              return f.o.root().submit(
                  "sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                  txParams(f.solana, programViaTable, "TRANSACTION_TYPE_SOLANA"));
            }).find("address lookup table"),
            std::string::npos);
  // A key that is not a required signer cannot sign.
  auto notSigner =
      f.o.root().submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                        txParams(f.solana, solanaTx({k.other, k.payer}, 1, {{0, {0}, Bytes{}}}),
                                 "TRANSACTION_TYPE_SOLANA"));
  EXPECT_EQ(status(notSigner), kFailed);
  EXPECT_NE(failureOf(notSigner).find("not one of the transaction's 1 required signers"),
            std::string::npos);
}

// Every instruction an SPL transfer of mint M; a plain Transfer names no mint.
TEST_P(TransactionPolicyTest, Case20SplTransfersAndTheirMint) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  SolanaKeys k(f.solana);
  f.o.policy("only mint M", "EFFECT_ALLOW",
             "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && "
             "solana.tx.spl_transfers.all(t, t.token_mint == '" +
                 k.b58(k.mint) + "' && t.owner == '" + f.solana + "' && t.amount <= 100)");
  auto sign = [&](const std::string& tx) { return f.signSolana(u, tx); };
  Bytes source(32, 0x66), destination(32, 0x77);
  // keys: payer(owner), source, destination (writable), mint, token program (read-only)
  std::vector<Bytes> keys{k.payer, source, destination, k.mint, k.token};
  Bytes checked = littleEndian(12, 1, 100);
  checked.push_back(6);  // decimals
  EXPECT_EQ(status(sign(solanaTx(keys, 2, {{4, {1, 3, 2, 0}, checked}}))), kCompleted);
  checked[1] = 101;
  EXPECT_EQ(status(sign(solanaTx(keys, 2, {{4, {1, 3, 2, 0}, checked}}))), kFailed);
  EXPECT_EQ(status(sign(solanaTx(keys, 2, {{4, {1, 2, 0}, littleEndian(3, 1, 100)}}))), kFailed);
}

// The IDL half of case 20: an instruction to a program with an IDL is decoded into
// parsed_instruction_data; a policy reads its name and arguments, and an instruction the IDL
// does not decode has none, so the policy errors and fails closed.
TEST_P(TransactionPolicyTest, Case20IdlDecodedInstructions) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  SolanaKeys k(f.solana);
  Bytes router(32, 0x6a);
  f.contractInterface(k.b58(router), R"({"instructions":[{"name":"route",
      "accounts":[{"name":"token_program"},{"name":"user_transfer_authority"}],
      "args":[{"name":"in_amount","type":"u64"},{"name":"slippage_bps","type":"u16"}]}],
      "types":[]})",
                      "SMART_CONTRACT_INTERFACE_TYPE_SOLANA");
  f.o.policy("routes of up to 995500000", "EFFECT_ALLOW",
             "solana.tx.instructions.any(i, i.program_key == '" + k.b58(router) +
                 "' && i.parsed_instruction_data.instruction_name == 'route' && "
                 "i.parsed_instruction_data.program_call_args['in_amount'] == 995500000 && "
                 "i.parsed_instruction_data.named_accounts['user_transfer_authority'] == '" +
                 f.solana + "')");
  // route: Anchor's sha256("global:route")[0..8], then u64 in_amount and u16 slippage_bps.
  auto route = [&](uint64_t amount, const Bytes& program) {
    Bytes data = *fromHex("e517cb977ae3ad2a");
    for (int i = 0; i < 8; ++i) data.push_back(static_cast<uint8_t>(amount >> (8 * i)));
    data.insert(data.end(), {50, 0});
    return f.signSolana(u, solanaTx({k.payer, k.token, program}, 0, {{2, {1, 0}, data}}));
  };
  auto allowed = route(995500000, router);
  EXPECT_EQ(status(allowed), kCompleted) << json::stringify(allowed);
  EXPECT_EQ(status(route(995500001, router)), kFailed);
  // The same bytes to a program without an IDL have no parsed data: the policy errors.
  auto undecoded = route(995500000, k.other);
  EXPECT_NE(failureOf(undecoded).find("errored"), std::string::npos) << json::stringify(undecoded);
}

// A Tron Transaction.raw as TronWeb lays it out (ref block, expiration, one contract,
// timestamp, fee limit), hex without 0x as raw_data_hex is.
std::string tronRaw(uint64_t type, const std::string& contractName, const Bytes& parameter) {
  Bytes any, contract, raw;
  signing::appendProtoBytes(any, 1, toBytes("type.googleapis.com/protocol." + contractName));
  signing::appendProtoBytes(any, 2, parameter);
  contract.push_back(0x08);
  signing::appendProtoVarint(contract, type);
  signing::appendProtoBytes(contract, 2, any);
  signing::appendProtoBytes(raw, 1, {0x8a, 0xd9});
  signing::appendProtoBytes(raw, 4, *fromHex("eaef69105495eb15"));
  raw.push_back(0x40);
  signing::appendProtoVarint(raw, 1773182914544);
  signing::appendProtoBytes(raw, 11, contract);
  raw.push_back(0x70);
  signing::appendProtoVarint(raw, 1773182854544);
  raw.push_back(0x90);
  raw.push_back(0x01);
  signing::appendProtoVarint(raw, 100000000);
  return toHex(raw);
}
Bytes tronAddress(const std::string& base58) {
  return *base58CheckDecode(base58);
}
std::string tronTransfer(const std::string& owner, const std::string& to, uint64_t sun) {
  Bytes p;
  signing::appendProtoBytes(p, 1, tronAddress(owner));
  signing::appendProtoBytes(p, 2, tronAddress(to));
  p.push_back(0x18);
  signing::appendProtoVarint(p, sun);
  return tronRaw(1, "TransferContract", p);
}
std::string tronCall(const std::string& owner, const std::string& contract,
                     const std::string& dataHex) {
  Bytes p;
  signing::appendProtoBytes(p, 1, tronAddress(owner));
  signing::appendProtoBytes(p, 2, tronAddress(contract));
  signing::appendProtoBytes(p, 4, *fromHex(dataHex));
  return tronRaw(31, "TriggerSmartContract", p);
}

// A TRC-20 contract and selector; a TRX amount; the contract type. A contract field the
// transaction's type lacks (a transfer's contract_address) errors, so the policy fails closed.
TEST_P(TransactionPolicyTest, Case22TronContractsAndAmounts) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  const std::string usdt = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf";
  const std::string receiver = "THsN1TH3sox1emzc8PxeFHC8HiZHhZ1qDX";
  std::string transferCall =
      "a9059cbb" + addressWord("0x" + toHex(tronAddress(receiver)).substr(2)) + uintWord(1000000);
  std::string approveCall = "095ea7b3" + transferCall.substr(8);

  std::string trc20 = f.o.policy("USDT transfers", "EFFECT_ALLOW",
                                 "tron.tx.contract[0].contract_address == '" + usdt +
                                     "' && tron.tx.contract[0].data[0..8] == 'a9059cbb'");
  std::string raw = tronCall(f.tron, usdt, transferCall);
  auto signedOk = f.signTron(u, raw);
  ASSERT_EQ(status(signedOk), kCompleted) << json::stringify(signedOk);
  // Transaction{raw_data, signature: [r‖s‖v]}: the raw data unchanged, and a signature over
  // its sha256 that verifies under the account's key, v being 27 or 28.
  auto fields = signing::parseProtoFields(
      *fromHex(
          resultOf(signedOk, "signTransactionResult")->getValue<std::string>("signedTransaction")),
      "signed");
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(toHex(fields[0].bytes), raw);
  ASSERT_EQ(fields[1].bytes.size(), 65u);
  EXPECT_TRUE(fields[1].bytes[64] == 27 || fields[1].bytes[64] == 28);
  crypto::EcdsaSignature sig{};
  std::copy(fields[1].bytes.begin(), fields[1].bytes.begin() + 32, sig.r.begin());
  std::copy(fields[1].bytes.begin() + 32, fields[1].bytes.begin() + 64, sig.s.begin());
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, f.publicKeyOf(f.tron),
                                  crypto::sha256(fields[0].bytes), sig));
  EXPECT_EQ(status(f.signTron(u, tronCall(f.tron, usdt, approveCall))), kFailed);
  EXPECT_EQ(status(f.signTron(u, tronCall(f.tron, receiver, transferCall))), kFailed);
  auto plain = f.signTron(u, tronTransfer(f.tron, receiver, 1));
  EXPECT_EQ(status(plain), kFailed);
  EXPECT_NE(failureOf(plain).find("missing field: .contract_address"), std::string::npos)
      << failureOf(plain);
  f.dropPolicy(trc20);

  f.o.policy("small TRX transfers", "EFFECT_ALLOW",
             "tron.tx.contract[0].type == 'TransferContract' && tron.tx.contract[0].amount < "
             "10000000");
  EXPECT_EQ(status(f.signTron(u, tronTransfer(f.tron, receiver, 5000000))), kCompleted);
  EXPECT_EQ(status(f.signTron(u, tronTransfer(f.tron, receiver, 20000000))), kFailed);
  EXPECT_EQ(status(f.signTron(u, tronCall(f.tron, usdt, transferCall))), kFailed);

  // A Tron transaction signed with an Ed25519 account is refused, naming the curve.
  EXPECT_NE(refusalOf([&] {
              return f.o.root().submit(
                  "sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                  txParams(f.solana, tronTransfer(f.tron, receiver, 1), "TRANSACTION_TYPE_TRON"));
            }).find("CURVE_ED25519"),
            std::string::npos);
}

// An unsigned Tempo (0x76) transaction with these calls [to, value, input], hex without 0x
// (what @turnkey/viem sends).
struct TempoCall {
  std::string to, input;
};
std::string tempoTx(const std::vector<TempoCall>& calls) {
  std::vector<Bytes> callItems;
  for (const auto& c : calls)
    callItems.push_back(rlpEncodeList(
        {rlpEncodeString(*fromHex(c.to)), rlpEncodeUint({}), rlpEncodeString(*fromHex(c.input))}));
  Bytes empty = rlpEncodeString({});
  std::vector<Bytes> f{rlpEncodeUint(uintBytes(42431)),
                       rlpEncodeUint(uintBytes(1000000000)),
                       rlpEncodeUint(uintBytes(20000000000)),
                       rlpEncodeUint(uintBytes(100000)),
                       rlpEncodeList(callItems),
                       rlpEncodeList({}),
                       empty,
                       empty,
                       empty,
                       empty,
                       empty,
                       empty,
                       rlpEncodeList({})};
  Bytes tx{0x76};
  Bytes body = rlpEncodeList(f);
  tx.insert(tx.end(), body.begin(), body.end());
  return toHex(tx);
}

// Every call to A; a DENY on single-call transactions; an address argument sliced out
// of the input; a private key's tag.
TEST_P(TransactionPolicyTest, Case23TempoCallsInputAndKeyTags) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  auto tagId =
      resultOf(f.o.root().submit(
                   "create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", f.o.org(),
                   json::parseObject(R"({"privateKeyTagName":"tempo-enabled","privateKeyIds":[]})",
                                     "t")),
               "createPrivateKeyTagResult")
          ->getValue<std::string>("privateKeyTagId");
  auto key = [&](const std::string& name, const std::string& tags) {
    return resultOf(f.o.root().submit(
                        "create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", f.o.org(),
                        json::parseObject(R"({"privateKeys":[{"privateKeyName":")" + name +
                                              R"(","curve":"CURVE_SECP256K1",
                                         "privateKeyTags":[)" +
                                              tags + R"(],"addressFormats":[]}]})",
                                          "t")),
                    "createPrivateKeysResultV2")
        ->getArray("privateKeys")
        ->getObject(0)
        ->getValue<std::string>("privateKeyId");
  };
  std::string tagged = key("tempo", "\"" + tagId + "\""), untagged = key("plain", "");
  auto sign = [&](const std::string& keyId, const std::string& tx) {
    return f.o.as(u).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                            txParams(keyId, tx, "TRANSACTION_TYPE_TEMPO"));
  };
  std::string recipient = "70997970c51812dc3a010c7d01b50e0d17dc79c8";
  std::string pay = "a9059cbb" + word(recipient) + uintWord(10);
  std::string payOther = "a9059cbb" + word(std::string(40, 'e')) + uintWord(10);

  f.o.policy("tagged keys pay through A", "EFFECT_ALLOW",
             "private_key.tags.contains('" + tagId + "') && tempo.tx.calls.all(call, call.to == '" +
                 kA + "') && tempo.tx.calls[0].input[34..74] == '" + recipient + "'");
  std::string denyOne = f.o.policy("no single calls", "EFFECT_DENY", "tempo.tx.calls.count() == 1");
  auto two = sign(tagged, tempoTx({{kA, pay}, {kA, pay}}));
  ASSERT_EQ(status(two), kCompleted) << json::stringify(two);
  EXPECT_EQ(status(sign(tagged, tempoTx({{kA, pay}}))), kFailed);                  // the DENY
  EXPECT_EQ(status(sign(tagged, tempoTx({{kA, pay}, {kB, pay}}))), kFailed);       // not all A
  EXPECT_EQ(status(sign(tagged, tempoTx({{kA, payOther}, {kA, pay}}))), kFailed);  // recipient
  EXPECT_EQ(status(sign(untagged, tempoTx({{kA, pay}, {kA, pay}}))), kFailed);     // the tag

  // The signed transaction appends r ‖ s ‖ v (v = 27 or 28) over keccak256 of the input.
  std::string unsignedTx = tempoTx({{kA, pay}, {kA, pay}});
  auto signedRaw = *fromHex(resultOf(sign(tagged, unsignedTx), "signTransactionResult")
                                ->getValue<std::string>("signedTransaction"));
  ASSERT_EQ(signedRaw.at(0), 0x76);
  auto top = rlpDecode(signedRaw.data() + 1, signedRaw.size() - 1, "signed");
  ASSERT_EQ(top.items.size(), 14u);
  const Bytes& sigBytes = top.items[13].bytes;
  ASSERT_EQ(sigBytes.size(), 65u);
  EXPECT_TRUE(sigBytes[64] == 27 || sigBytes[64] == 28);
  crypto::EcdsaSignature sig{};
  std::copy(sigBytes.begin(), sigBytes.begin() + 32, sig.r.begin());
  std::copy(sigBytes.begin() + 32, sigBytes.begin() + 64, sig.s.begin());
  auto unsignedRaw = *fromHex(unsignedTx);
  json::Object q = json::object();
  q->set("organizationId", f.o.org());
  q->set("privateKeyId", tagged);
  auto publicKey = *fromHex(f.o.root()
                                .query("get_private_key", q)
                                ->getObject("privateKey")
                                ->getValue<std::string>("publicKey"));
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, publicKey,
                                  crypto::keccak256(unsignedRaw.data(), unsignedRaw.size()), sig));
}

// A PSBT spending one output (`spentScript`, worth `amount`) into outputs of these values,
// each paying to P2WPKH of a fixed hash; witness_utxo set, as wallets do for segwit inputs.
std::string psbtSpending(const Bytes& spentScript, uint64_t amount,
                         const std::vector<uint64_t>& outputs) {
  signing::BtcTx tx;
  tx.version = 2;
  tx.inputs.push_back({Bytes(32, 0x11), 0, {}, 0xfffffffd});
  for (uint64_t v : outputs) tx.outputs.push_back({v, *fromHex("0014" + std::string(40, '7'))});
  signing::Psbt p;
  p.global.entries.push_back({{0x00}, signing::serializeBtcTx(tx)});
  Bytes utxo;
  for (int i = 0; i < 8; ++i) utxo.push_back(static_cast<uint8_t>(amount >> (8 * i)));
  signing::appendCompactSize(utxo, spentScript.size());
  utxo.insert(utxo.end(), spentScript.begin(), spentScript.end());
  p.inputs.push_back({{{{0x01}, utxo}}});
  p.outputs.resize(outputs.size());
  return toHex(signing::serializePsbt(p));
}

// Every output under 200000 sat (ALLOW) and a fee over 50000 (DENY); a P2WPKH input
// gets a DER partial signature and a P2TR input a key-path Schnorr signature, both verified.
TEST_P(TransactionPolicyTest, Case21BitcoinOutputsAndFee) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  Bytes segwitKey = f.publicKeyOf(f.segwit), taprootKey = f.publicKeyOf(f.taproot);
  auto h = crypto::hash160(segwitKey.data(), segwitKey.size());
  Bytes p2wpkh = *fromHex("0014" + toHex(Bytes(h.begin(), h.end())));
  Bytes p2tr = *fromHex("5120" + toHex(*crypto::taprootOutputKey(taprootKey)));
  auto sign = [&](const std::string& account, const std::string& psbt) {
    return f.o.as(u).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                            txParams(account, psbt, "TRANSACTION_TYPE_BITCOIN"));
  };
  f.o.policy("small outputs", "EFFECT_ALLOW", "bitcoin.tx.outputs.all(o, o.value < 200000)");
  f.o.policy("no large fees", "EFFECT_DENY", "bitcoin.tx.fee > 50000");

  std::string unsignedPsbt = psbtSpending(p2wpkh, 160000, {150000});  // fee 10000
  auto ok = sign(f.segwit, unsignedPsbt);
  ASSERT_EQ(status(ok), kCompleted) << json::stringify(ok);
  EXPECT_EQ(status(sign(f.segwit, psbtSpending(p2wpkh, 260000, {250000}))), kFailed);
  auto feeTooHigh = sign(f.segwit, psbtSpending(p2wpkh, 210000, {150000}));  // fee 60000
  EXPECT_EQ(status(feeTooHigh), kFailed);
  EXPECT_NE(failureOf(feeTooHigh).find("no large fees"), std::string::npos)
      << failureOf(feeTooHigh);

  // The returned PSBT, not finalised: the DER signature (+ SIGHASH_ALL) under the public key
  // verifies over the input's BIP-143 digest.
  auto psbt = signing::parsePsbt(
      *fromHex(resultOf(ok, "signTransactionResult")->getValue<std::string>("signedTransaction")),
      "signed");
  Bytes sigKey{0x02};
  sigKey.insert(sigKey.end(), segwitKey.begin(), segwitKey.end());
  auto& entries = psbt.inputs[0].entries;
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const auto& e) { return e.first == sigKey; });
  ASSERT_NE(it, entries.end());
  ASSERT_EQ(it->second.back(), 0x01);
  auto der = crypto::parseDerSignature(Bytes(it->second.begin(), it->second.end() - 1));
  ASSERT_TRUE(der);
  Bytes scriptCode = *fromHex("76a914" + toHex(Bytes(h.begin(), h.end())) + "88ac");
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, segwitKey,
                                  signing::bip143SighashAll(psbt.tx, 0, scriptCode, 160000), *der));

  auto tapOk = sign(f.taproot, psbtSpending(p2tr, 160000, {150000}));
  ASSERT_EQ(status(tapOk), kCompleted) << json::stringify(tapOk);
  auto tapPsbt = signing::parsePsbt(
      *fromHex(
          resultOf(tapOk, "signTransactionResult")->getValue<std::string>("signedTransaction")),
      "signed");
  const Bytes* tapSig = tapPsbt.inputs[0].find(0x13);
  ASSERT_TRUE(tapSig);
  EXPECT_TRUE(crypto::verifySchnorr(*crypto::taprootOutputKey(taprootKey),
                                    signing::taprootKeyPathSighash(tapPsbt.tx, 0, {{160000, p2tr}}),
                                    *tapSig));

  // The segwit account spends none of a taproot PSBT's inputs: refused, naming signWith.
  EXPECT_NE(refusalOf([&] {
              return f.o.root().submit(
                  "sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", f.o.org(),
                  txParams(f.segwit, psbtSpending(p2tr, 1000, {500}), "TRANSACTION_TYPE_BITCOIN"));
            }).find("can spend none of the PSBT's inputs"),
            std::string::npos);
}

TEST_P(TransactionPolicyTest, ContractInterfacesAreStoredListedAndRefused) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  std::string id = f.contractInterface(kWeth, kWethAbi);
  json::Object q = json::object();
  q->set("organizationId", f.o.org());
  q->set("smartContractInterfaceId", id);
  auto got =
      gw.rootClient().query("get_smart_contract_interface", q)->getObject("smartContractInterface");
  EXPECT_EQ(got->getValue<std::string>("smartContractAddress"), kWeth);
  EXPECT_EQ(got->getValue<std::string>("smartContractInterface"), kWethAbi);
  EXPECT_EQ(got->getValue<std::string>("type"), "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM");
  EXPECT_EQ(got->getValue<std::string>("notes"), "");
  EXPECT_TRUE(got->has("createdAt"));

  auto refused = [&](const std::string& address, const std::string& text,
                     const std::string& type = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM") {
    json::Object p = json::object();
    p->set("smartContractAddress", address);
    p->set("smartContractInterface", text);
    p->set("type", type);
    p->set("label", "x");
    return refusalOf([&] {
      return gw.rootClient().submit("create_smart_contract_interface",
                                    "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", f.o.org(), p);
    });
  };
  // One interface per address, whatever its letter case.
  EXPECT_NE(refused(asciiLower(kWeth), kWethAbi).find("already has interface " + id),
            std::string::npos);
  EXPECT_NE(refused(kA, "[{\"name\":\"f\",\"inputs\":[{\"type\":\"fixed\"}]}]").find("\"fixed\""),
            std::string::npos);
  EXPECT_NE(refused("0x1234", "[]").find("20-byte Ethereum address"), std::string::npos);
  EXPECT_NE(refused(kA, std::string(400 * 1024 + 1, ' ')).find("more than the 409600"),
            std::string::npos);
  EXPECT_NE(refused(f.solana, R"({"instructions":[]})", "SMART_CONTRACT_INTERFACE_TYPE_SOLANA")
                .find("types"),
            std::string::npos);
  EXPECT_NE(
      refused(f.solana,
              R"({"instructions":[{"name":"a","args":[{"name":"x","type":"u7"}]}],"types":[]})",
              "SMART_CONTRACT_INTERFACE_TYPE_SOLANA")
          .find("unknown IDL type \"u7\""),
      std::string::npos);
  EXPECT_NE(refused(kA, "[]", "SMART_CONTRACT_INTERFACE_TYPE_TRON").find("parameters.type"),
            std::string::npos);
  // A Solana IDL with instructions and (empty) types is kept.
  json::Object idl = json::object();
  idl->set("smartContractAddress", f.solana);
  idl->set("smartContractInterface",
           R"({"instructions":[{"name":"route","accounts":[],"args":[]}],"types":[]})");
  idl->set("type", "SMART_CONTRACT_INTERFACE_TYPE_SOLANA");
  idl->set("label", "jupiter");
  idl->set("notes", "router");
  EXPECT_EQ(status(gw.rootClient().submit("create_smart_contract_interface",
                                          "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
                                          f.o.org(), idl)),
            kCompleted);
  json::Object all = json::object();
  all->set("organizationId", f.o.org());
  EXPECT_EQ(gw.rootClient()
                .query("list_smart_contract_interfaces", all)
                ->getArray("smartContractInterfaces")
                ->size(),
            2u);

  json::Object del = json::object();
  del->set("smartContractInterfaceId", id);
  EXPECT_EQ(status(gw.rootClient().submit("delete_smart_contract_interface",
                                          "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
                                          f.o.org(), del)),
            kCompleted);
  EXPECT_THROW(gw.rootClient().query("get_smart_contract_interface", q), RequestError);
  EXPECT_EQ(status(gw.rootClient().submit("delete_smart_contract_interface",
                                          "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
                                          f.o.org(), del)),
            kFailed);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_contract_interfaces"), 1);
}

}  // namespace
}  // namespace signet::test
