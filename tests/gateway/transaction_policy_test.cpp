// sign_transaction and the reference/policy.md §4 cases that read eth.tx, through a real
// gateway: 1 (allowlist with a named approver), 2 (no consensus), 15 (selector, chain id,
// nonce), 16 (WETH ABI arguments, and no ABI → error) and 17 (batched calls as lists, flat
// address arrays); plus smart contract interface storage and its refusals.
#include "rlp.hpp"
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

// What a refused submission says: bad input is answered with an error and nothing stored;
// a request that fails later is stored FAILED with its failure.
template <typename Submit>
std::string refusalOf(Submit submit) {
  try {
    auto a = submit();
    EXPECT_EQ(status(a), kFailed) << json::stringify(a);
    return failureOf(a);
  } catch (const RequestError& e) {
    return e.what();
  }
}

struct Fixture {
  explicit Fixture(TestGateway& gw) : o(gw) {
    auto created = resultOf(
        o.root().submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", o.org(),
            walletParams("w",
                         {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
                          account("CURVE_ED25519", "m/44'/501'/0'/0'", "ADDRESS_FORMAT_SOLANA")})),
        "createWalletResult");
    walletId = created->getValue<std::string>("walletId");
    address = created->getArray("addresses")->getElement<std::string>(0);
    solana = created->getArray("addresses")->getElement<std::string>(1);
  }
  json::Object sign(const std::string& userId, const std::string& unsignedTx) {
    return o.as(userId).submit("sign_transaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", o.org(),
                               txParams(address, unsignedTx));
  }
  std::string contractInterface(const std::string& contract, const std::string& abi) {
    json::Object p = json::object();
    p->set("smartContractAddress", contract);
    p->set("smartContractInterface", abi);
    p->set("type", "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM");
    p->set("label", "abi of " + contract);
    return resultOf(o.root().submit("create_smart_contract_interface",
                                    "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE", o.org(), p),
                    "createSmartContractInterfaceResult")
        ->getValue<std::string>("smartContractInterfaceId");
  }
  Org o;
  std::string walletId, address, solana;
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
  json::Object q = json::object();
  q->set("organizationId", f.o.org());
  q->set("walletId", f.walletId);
  q->set("address", f.address);
  auto publicKey = *fromHex(gw.rootClient()
                                .query("get_wallet_account", q)
                                ->getObject("account")
                                ->getValue<std::string>("publicKey"));
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, publicKey,
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
  EXPECT_NE(refused(txParams(f.address, unsignedTx, "TRANSACTION_TYPE_SOLANA"))
                .find("TRANSACTION_TYPE_SOLANA transactions are not signed by this gateway yet"),
            std::string::npos);
  EXPECT_NE(refused(txParams(f.address, unsignedTx, "ETHEREUM")).find("\"ETHEREUM\""),
            std::string::npos);
  EXPECT_NE(refused(txParams(f.solana, unsignedTx)).find("CURVE_ED25519"), std::string::npos);
  EXPECT_NE(refused(txParams("0x0000000000000000000000000000000000000001", unsignedTx))
                .find("is no wallet account address"),
            std::string::npos);
}

// §4.1: an allowlist whose consensus names U1; §4.2: the same condition with no consensus.
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

  // §4.2: with no consensus, any user may send to B.
  f.o.policy("anyone may send to B", "EFFECT_ALLOW", "eth.tx.to == '" + kB + "'");
  EXPECT_EQ(status(f.sign(u2, eip1559(kB, "0x"))), kCompleted);
  EXPECT_EQ(status(f.sign(u2, eip1559(kA, "0x", 1, 2))), kConsensus);
}

// §4.15: the ERC-20 transfer selector by slicing, the chain id and the nonce as numbers.
TEST_P(TransactionPolicyTest, Case15SelectorChainIdAndNonce) {
  TestGateway gw(GetParam(), {"signing"});
  Fixture f(gw);
  auto u = f.o.user("U");
  f.o.policy("ERC-20 transfers on C", "EFFECT_ALLOW",
             "eth.tx.to == '" + kA + "' && eth.tx.data[0..10] == '0xa9059cbb'");
  std::string args = addressWord(kDst) + uintWord(5);
  EXPECT_EQ(status(f.sign(u, eip1559(kA, "0xa9059cbb" + args))), kCompleted);
  EXPECT_EQ(status(f.sign(u, eip1559(kA, "0x095ea7b3" + args))), kFailed);  // approve

  f.o.policy("sepolia", "EFFECT_ALLOW", "eth.tx.chain_id == 11155111");
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

// §4.16: arguments decoded with the contract's ABI; without an ABI the policy errors.
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

// §4.17: batched calls are lists of tuples read by position; a flat address array.
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
