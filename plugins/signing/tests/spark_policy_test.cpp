// spark_prepare_transfer through a real gateway: a Spark transfer policy from Turnkey's examples (a
// policy over activity.params.transfer.receiver_public_key) decides a non-root user's transfers,
// and what a completed transfer returns is opened as the operators and the receiver would: each
// operator's package with its key, the new leaf keys with the receiver's. Bad intents are
// refused naming the field. (The conformance suite checks the same output with the Spark SDK.)
#include "chains/spark/ecies.hpp"
#include "chains/tron/protobuf.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class SparkPolicyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SparkPolicyTest);

const auto kK1 = crypto::Curve::kSecp256k1;

struct KeyPair {
  crypto::SecretBytes priv = crypto::generatePrivateKey(kK1);
  std::string pub = toHex(crypto::publicKeyFromPrivate(kK1, priv));
};

struct SparkFixture {
  explicit SparkFixture(TestGateway& gw) : o(gw) {
    auto created = resultOf(
        o.root().submit(
            "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", o.org(),
            walletParams(
                "spark",
                {account("CURVE_SECP256K1", "m/8797555'/0'/0'", "ADDRESS_FORMAT_SPARK_MAINNET"),
                 account("CURVE_SECP256K1", "m/8797555'/0'/1'", "ADDRESS_FORMAT_SPARK_MAINNET"),
                 account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM")})),
        "createWalletResult");
    auto addresses = created->getArray("addresses");
    spark = addresses->getElement<std::string>(0);
    notIdentity = addresses->getElement<std::string>(1);
    ethereum = addresses->getElement<std::string>(2);
  }

  // Two leaves moving to new keys, for three operators with threshold 2.
  json::Object intent(const std::string& receiver, const std::string& signWith = "") {
    json::Object transfer = json::object();
    transfer->set("transferId", transferId);
    transfer->set("threshold", 2);
    transfer->set("receiverPublicKey", receiver);
    json::Array ops = json::array();
    for (size_t i = 0; i < operators.size(); ++i) {
      json::Object op = json::object();
      op->set("operatorId", "operator-" + std::to_string(i));
      op->set("encryptionPublicKey", operators[i].pub);
      ops->add(op);
    }
    transfer->set("operatorRecipients", ops);
    json::Array leaves = json::array();
    for (const auto& id : leafIds) {
      auto derivation = [](const std::string& leafId) {
        json::Object leaf = json::object(), d = json::object();
        leaf->set("leafId", leafId);
        d->set("signingLeaf", leaf);
        return d;
      };
      json::Object l = json::object();
      l->set("leafId", id);
      l->set("oldLeafDerivation", derivation(id));
      l->set("newLeafDerivation", derivation(id + "/new"));
      leaves->add(l);
    }
    transfer->set("leaves", leaves);
    json::Object p = json::object();
    p->set("signWith", signWith.empty() ? spark : signWith);
    p->set("transfer", transfer);
    return p;
  }
  json::Object submit(const std::string& userId, const json::Object& p) {
    return o.as(userId).submit("spark_prepare_transfer", "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
                               o.org(), p);
  }

  Org o;
  std::string spark, notIdentity, ethereum;
  std::string transferId = crypto::uuidV4();
  std::vector<std::string> leafIds{crypto::uuidV4(), crypto::uuidV4()};
  std::vector<KeyPair> operators = std::vector<KeyPair>(3);
};

std::vector<signing::ProtoField> fieldsOf(const Bytes& message, uint32_t number) {
  std::vector<signing::ProtoField> out;
  for (auto& f : signing::parseProtoFields(message, "message"))
    if (f.number == number) out.push_back(std::move(f));
  return out;
}
Bytes fieldOf(const Bytes& message, uint32_t number) {
  auto fields = fieldsOf(message, number);
  EXPECT_EQ(fields.size(), 1u) << "field " << number;
  return fields.empty() ? Bytes{} : fields[0].bytes;
}

TEST_P(SparkPolicyTest, Case28ReceiverAllowlist) {
  TestGateway gw(GetParam(), {"signing"});
  SparkFixture f(gw);
  auto u = f.o.user("U");
  KeyPair receiver, other, stranger;
  f.o.policy("spark receivers", "EFFECT_ALLOW",
             "activity.type == 'ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER' && "
             "activity.params.transfer.receiver_public_key in ['" +
                 receiver.pub + "','" + other.pub + "']");

  auto done = f.submit(u, f.intent(receiver.pub));
  auto result = resultOf(done, "sparkPrepareTransferResult");
  auto newKeys = result->getArray("newLeafPublicKeys");
  ASSERT_EQ(newKeys->size(), 2u);
  auto packages = result->getArray("operatorPackages");
  ASSERT_EQ(packages->size(), 3u);
  EXPECT_FALSE(result->getValue<std::string>("transferUserSignature").empty());
  for (size_t i = 0; i < 3; ++i) {
    auto package = packages->getObject(static_cast<unsigned>(i));
    EXPECT_EQ(package->getValue<std::string>("operatorId"), "operator-" + std::to_string(i));
    Bytes sealed = *fromHex(package->getValue<std::string>("encryptedPackage"));
    EXPECT_FALSE(signing::eciesDecrypt(f.operators[(i + 1) % 3].priv, sealed));
    auto opened = signing::eciesDecrypt(f.operators[i].priv, sealed);
    ASSERT_TRUE(opened);
    auto leaves = fieldsOf(opened->bytes(), 1);  // SendLeafKeyTweaks.leaves_to_send
    ASSERT_EQ(leaves.size(), 2u);
    for (size_t l = 0; l < 2; ++l) {
      const Bytes& tweak = leaves[l].bytes;
      EXPECT_EQ(toString(fieldOf(tweak, 1)), f.leafIds[l]);
      Bytes share = fieldOf(fieldOf(tweak, 2), 1);
      EXPECT_EQ(fieldsOf(fieldOf(tweak, 2), 2).size(), 2u);  // threshold proofs
      // This operator's entry of pubkey_shares_tweak is its share's public key.
      bool found = false;
      for (const auto& entry : fieldsOf(tweak, 3))
        if (toString(fieldOf(entry.bytes, 1)) == "operator-" + std::to_string(i)) {
          found = true;
          EXPECT_EQ(fieldOf(entry.bytes, 2),
                    crypto::publicKeyFromPrivate(kK1, crypto::SecretBytes(share)));
        }
      EXPECT_TRUE(found);
      auto newLeafKey = signing::eciesDecrypt(receiver.priv, fieldOf(tweak, 4));
      ASSERT_TRUE(newLeafKey);
      EXPECT_EQ(toHex(crypto::publicKeyFromPrivate(kK1, *newLeafKey)),
                newKeys->getObject(static_cast<unsigned>(l))->getValue<std::string>("publicKey"));
      EXPECT_EQ(fieldOf(tweak, 5).size(), 64u);  // compact identity signature
      EXPECT_TRUE(fieldsOf(tweak, 6).empty());   // no refund signature was given
    }
  }

  auto denied = f.submit(u, f.intent(stranger.pub));
  EXPECT_EQ(status(denied), kFailed);
  EXPECT_NE(failureOf(denied).find("implicit deny"), std::string::npos) << failureOf(denied);
}

TEST_P(SparkPolicyTest, BadTransfersAreRefusedNamingTheField) {
  TestGateway gw(GetParam(), {"signing"});
  SparkFixture f(gw);
  const std::string root = gw.root().userId;
  KeyPair receiver;
  auto refusal = [&](const std::function<void(json::Object&)>& change,
                     const std::string& signWith = "") {
    auto p = f.intent(receiver.pub, signWith);
    auto t = p->getObject("transfer");
    change(t);
    return refusalOf([&] { return f.submit(root, p); });
  };
  auto leaf0 = [](json::Object& t) { return t->getArray("leaves")->getObject(0); };
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };

  EXPECT_TRUE(has(refusal([](json::Object& t) { t->set("threshold", 0); }),
                  "parameters.transfer.threshold: 0"));
  EXPECT_TRUE(has(refusal([](json::Object& t) { t->set("threshold", 4); }),
                  "parameters.transfer.threshold: 4"));
  EXPECT_TRUE(has(refusal([](json::Object& t) { t->set("transferId", "not-a-uuid"); }),
                  "parameters.transfer.transferId"));
  EXPECT_TRUE(has(
      refusal([](json::Object& t) { t->set("receiverPublicKey", "02" + std::string(64, '0')); }),
      "parameters.transfer.receiverPublicKey"));
  EXPECT_TRUE(has(refusal([&](json::Object& t) {
                    leaf0(t)->set("newLeafDerivation", leaf0(t)->getObject("oldLeafDerivation"));
                  }),
                  "parameters.transfer.leaves[0].newLeafDerivation: the new leaf key must differ"));
  EXPECT_TRUE(has(refusal([&](json::Object& t) {
                    t->getArray("leaves")->getObject(1)->set("leafId", f.leafIds[0]);
                  }),
                  "parameters.transfer.leaves[1].leafId"));
  EXPECT_TRUE(has(refusal([&](json::Object& t) {
                    leaf0(t)->set("oldLeafDerivation", json::parseObject(R"({"deposit":{}})", "d"));
                  }),
                  "parameters.transfer.leaves[0].oldLeafDerivation: a transfer's leaf keys are "
                  "signingLeaf derivations"));
  EXPECT_TRUE(has(refusal([](json::Object& t) { t->set("operatorRecipients", json::array()); }),
                  "parameters.transfer.operatorRecipients: must not be empty"));
  EXPECT_TRUE(has(refusal([&](json::Object& t) { leaf0(t)->set("refundSignature", "zz"); }),
                  "parameters.transfer.leaves[0].refundSignature: not hex"));
  EXPECT_TRUE(has(refusal([](json::Object&) {}, f.ethereum),
                  "parameters.signWith: \"" + f.ethereum + "\" is not a Spark wallet account"));
  EXPECT_TRUE(has(refusal([](json::Object&) {}, f.notIdentity),
                  "a Spark identity key is at m/8797555'/<account>'/0'"));
}

}  // namespace
}  // namespace signet::test
