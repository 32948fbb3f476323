// The Spark activities through a real gateway. spark_prepare_transfer: a Spark transfer policy
// from Turnkey's examples (a policy over activity.params.transfer.receiver_public_key) decides a
// non-root user's transfers, and what a completed transfer returns is opened as the operators
// and the receiver would: each operator's package with its key, the new leaf keys with the
// receiver's. spark_claim_transfer and spark_prepare_lightning_receive: the operators' packages
// open to shares that recover, by interpolation, the leaf key's tweak and the invoice's preimage.
// Bad intents are refused naming the field, and store nothing. (The conformance suite checks the
// same outputs with the Spark SDK.)
#include "chains/spark/ecies.hpp"
#include "chains/spark/frost.hpp"
#include "chains/tron/protobuf.hpp"
#include "feldman_recovery.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class SparkPolicyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SparkPolicyTest);

const auto kK1 = crypto::Curve::kSecp256k1;
namespace frost = signing::frost;

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
    walletId = created->getValue<std::string>("walletId");
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
    transfer->set("operatorRecipients", operatorList());
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

  // The identity key of `spark`, which inbound leaf keys are sealed to.
  Bytes identityKey() {
    json::Object body = json::object();
    body->set("organizationId", o.org());
    body->set("walletId", walletId);
    body->set("address", spark);
    return *fromHex(o.root()
                        .query("get_wallet_account", body)
                        ->getObject("account")
                        ->getValue<std::string>("publicKey"));
  }
  json::Array operatorList() const {
    json::Array ops = json::array();
    for (size_t i = 0; i < operators.size(); ++i) {
      json::Object op = json::object();
      op->set("operatorId", "operator-" + std::to_string(i));
      op->set("encryptionPublicKey", operators[i].pub);
      ops->add(op);
    }
    return ops;
  }

  Org o;
  std::string walletId, spark, notIdentity, ethereum;
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

// One operator's SecretShare, from a package: the share, and its Feldman proofs.
signing::VerifiableShare secretShareOf(const Bytes& message, uint32_t index) {
  signing::VerifiableShare share{index, crypto::SecretBytes(fieldOf(message, 1)), {}};
  for (auto& proof : fieldsOf(message, 2)) share.proofs.push_back(proof.bytes);
  return share;
}

// Opens each package of `result` with its operator's key (and with no other operator's), as
// `read` finds that operator's share of what was split in the message.
template <typename Read>
std::vector<signing::VerifiableShare> openPackages(const SparkFixture& f,
                                                   const json::Object& result, Read read) {
  auto packages = result->getArray("operatorPackages");
  EXPECT_EQ(packages->size(), f.operators.size());
  std::vector<signing::VerifiableShare> shares;
  for (size_t i = 0; i < packages->size() && i < f.operators.size(); ++i) {
    auto package = packages->getObject(static_cast<unsigned>(i));
    EXPECT_EQ(package->getValue<std::string>("operatorId"), "operator-" + std::to_string(i));
    Bytes sealed = *fromHex(package->getValue<std::string>("encryptedPackage"));
    EXPECT_FALSE(signing::eciesDecrypt(f.operators[(i + 1) % f.operators.size()].priv, sealed));
    auto opened = signing::eciesDecrypt(f.operators[i].priv, sealed);
    if (!opened) {
      ADD_FAILURE() << "package " << i << " does not open with its operator's key";
      continue;
    }
    shares.push_back(secretShareOf(read(opened->bytes()), static_cast<uint32_t>(i + 1)));
  }
  return shares;
}

Bytes recovered(const std::vector<signing::VerifiableShare>& shares, size_t a, size_t b) {
  return interpolateAtZero({&shares.at(a), &shares.at(b)});
}

// The raw store holds none of `secrets` (SQLite: its files; the tables and the activities).
void expectNotInTheStore(TestGateway& gw, Backend backend, const std::vector<Bytes>& secrets) {
  if (backend != Backend::kSqlite) return;
  for (const char* file : TestGateway::kSqliteFiles) {
    std::string bytes = gw.sqliteFile(file);
    EXPECT_FALSE(bytes.empty()) << file;
    for (const auto& secret : secrets) {
      EXPECT_EQ(bytes.find(toString(secret)), std::string::npos) << file;
      EXPECT_EQ(bytes.find(toHex(secret)), std::string::npos) << file;
    }
  }
}

TEST_P(SparkPolicyTest, ALightningPreimageGoesToTheOperatorsInSharesAndStaysNowhereElse) {
  TestGateway gw(GetParam(), {"signing"});
  SparkFixture f(gw);
  auto intent = [&](int threshold, const std::string& signWith) {
    json::Object receive = json::object();
    receive->set("threshold", threshold);
    receive->set("operatorRecipients", f.operatorList());
    json::Object p = json::object();
    p->set("signWith", signWith);
    p->set("lightningReceive", receive);
    return p;
  };
  auto submit = [&](const json::Object& p) {
    return f.o.root().submit("spark_prepare_lightning_receive",
                             "ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE", f.o.org(), p);
  };
  auto result = resultOf(submit(intent(2, f.spark)), "sparkPrepareLightningReceiveResult");
  auto shares = openPackages(f, result, [](const Bytes& message) { return message; });
  ASSERT_EQ(shares.size(), 3u);
  for (const auto& share : shares) {
    EXPECT_EQ(share.share.size(), 32u);
    ASSERT_EQ(share.proofs.size(), 2u);  // one a coefficient: threshold 2
    EXPECT_EQ(share.proofs, shares[0].proofs);
  }
  // Any two operators hold the preimage of the payment hash, and proofs[0] commits to it.
  Bytes preimage = recovered(shares, 0, 2);
  EXPECT_EQ(recovered(shares, 1, 2), preimage);
  EXPECT_EQ(recovered(shares, 0, 1), preimage);
  EXPECT_EQ(result->getValue<std::string>("paymentHash"), crypto::toHex(crypto::sha256(preimage)));
  EXPECT_EQ(shares[0].proofs[0], crypto::publicKeyFromPrivate(kK1, crypto::SecretBytes(preimage)));
  // Each activity draws its own.
  auto again = resultOf(submit(intent(2, f.spark)), "sparkPrepareLightningReceiveResult");
  EXPECT_NE(again->getValue<std::string>("paymentHash"),
            result->getValue<std::string>("paymentHash"));
  expectNotInTheStore(gw, GetParam(), {preimage});

  const int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(refusalOf([&] { return submit(intent(4, f.spark)); }),
                  "parameters.lightningReceive.threshold: 4"));
  EXPECT_TRUE(has(refusalOf([&] { return submit(intent(2, f.ethereum)); }),
                  "parameters.signWith: \"" + f.ethereum + "\" is not a Spark wallet account"));
  auto noOperators = intent(1, f.spark);
  noOperators->getObject("lightningReceive")->set("operatorRecipients", json::array());
  EXPECT_TRUE(has(refusalOf([&] { return submit(noOperators); }),
                  "parameters.lightningReceive.operatorRecipients: must not be empty"));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities);
}

// What a Spark sender sends the receiver of a leaf: the leaf key sealed to the receiver's
// identity key, and the sender identity key's compact signature over it.
struct InboundLeaf {
  std::string leafId = crypto::uuidV4();
  crypto::SecretBytes key = crypto::generatePrivateKey(kK1);
  Bytes ciphertext;
  Bytes signature;
};

TEST_P(SparkPolicyTest, AClaimedLeafMovesToTheWalletsOwnKeyThroughTheOperatorsShares) {
  TestGateway gw(GetParam(), {"signing"});
  SparkFixture f(gw);
  KeyPair sender;
  const std::string transferId = crypto::uuidV4();
  const Bytes identity = f.identityKey();
  std::vector<InboundLeaf> leaves(2);
  for (auto& leaf : leaves) {
    leaf.ciphertext = signing::eciesEncrypt(identity, leaf.key.bytes().data(), leaf.key.size());
    Bytes signed_ = toBytes(leaf.leafId + transferId);
    signed_.insert(signed_.end(), leaf.ciphertext.begin(), leaf.ciphertext.end());
    auto sig = crypto::signEcdsa(kK1, sender.priv, crypto::sha256(signed_));
    leaf.signature.assign(sig.r.begin(), sig.r.end());
    leaf.signature.insert(leaf.signature.end(), sig.s.begin(), sig.s.end());
  }
  auto intent = [&]() {
    json::Object claim = json::object();
    claim->set("transferId", transferId);
    claim->set("senderIdentityPublicKey", sender.pub);
    claim->set("threshold", 2);
    claim->set("operatorRecipients", f.operatorList());
    json::Array list = json::array();
    for (const auto& leaf : leaves) {
      json::Object l = json::object();
      l->set("leafId", leaf.leafId);
      l->set("ciphertext", toHex(leaf.ciphertext));
      l->set("senderSignature", toHex(leaf.signature));
      list->add(l);
    }
    claim->set("leaves", list);
    json::Object p = json::object();
    p->set("signWith", f.spark);
    p->set("claim", claim);
    return p;
  };
  auto submit = [&](const json::Object& p) {
    return f.o.root().submit("spark_claim_transfer", "ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER",
                             f.o.org(), p);
  };

  auto result = resultOf(submit(intent()), "sparkClaimTransferResult");
  auto newKeys = result->getArray("newLeafPublicKeys");
  ASSERT_EQ(newKeys->size(), 2u);
  for (size_t l = 0; l < leaves.size(); ++l) {
    auto entry = newKeys->getObject(static_cast<unsigned>(l));
    EXPECT_EQ(entry->getValue<std::string>("leafId"), leaves[l].leafId);
    // The ClaimLeafKeyTweak of leaf l in each package: leaf id, share, every share's point.
    auto shares = openPackages(f, result, [&](const Bytes& message) {
      auto tweaks = fieldsOf(message, 1);
      EXPECT_EQ(tweaks.size(), leaves.size());
      const Bytes& tweak = tweaks.at(l).bytes;
      EXPECT_EQ(toString(fieldOf(tweak, 1)), leaves[l].leafId);
      EXPECT_EQ(fieldsOf(tweak, 3).size(), f.operators.size());
      return fieldOf(tweak, 2);
    });
    ASSERT_EQ(shares.size(), 3u);
    // The operators' tweak takes the inbound key to the wallet's own: inbound − tweak is the
    // key whose public key the result names.
    Bytes tweak = recovered(shares, 0, 2);
    EXPECT_EQ(recovered(shares, 1, 2), tweak);
    auto negated = crypto::negateScalarSecp256k1(crypto::SecretBytes(tweak));
    ASSERT_TRUE(negated);
    auto own = crypto::addScalarsSecp256k1(leaves[l].key, *negated);
    ASSERT_TRUE(own);
    EXPECT_EQ(toHex(crypto::publicKeyFromPrivate(kK1, *own)),
              entry->getValue<std::string>("publicKey"));
    EXPECT_EQ(shares[0].proofs[0], crypto::publicKeyFromPrivate(kK1, crypto::SecretBytes(tweak)));
  }
  expectNotInTheStore(gw, GetParam(), {leaves[0].key.bytes(), leaves[1].key.bytes()});

  // Refused naming the field, storing nothing: a signature by another key, a flipped
  // ciphertext, a leaf sealed to another key, a short signature, a bad sender key.
  const int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  auto refusal = [&](const std::function<void(json::Object&)>& change) {
    auto p = intent();
    auto claim = p->getObject("claim");
    change(claim);
    return refusalOf([&] { return submit(p); });
  };
  auto leaf0 = [](json::Object& c) { return c->getArray("leaves")->getObject(0); };
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  KeyPair stranger;
  EXPECT_TRUE(
      has(refusal([&](json::Object& c) { c->set("senderIdentityPublicKey", stranger.pub); }),
          "parameters.claim.leaves[0].senderSignature: it does not verify"));
  EXPECT_TRUE(has(refusal([&](json::Object& c) {
                    Bytes flipped = leaves[0].ciphertext;
                    flipped.back() ^= 1;
                    leaf0(c)->set("ciphertext", toHex(flipped));
                  }),
                  "parameters.claim.leaves[0].senderSignature: it does not verify"));
  {
    // Well signed, but sealed to a key that is not this wallet's identity.
    InboundLeaf elsewhere;
    elsewhere.ciphertext = signing::eciesEncrypt(
        *fromHex(stranger.pub), elsewhere.key.bytes().data(), elsewhere.key.size());
    Bytes signed_ = toBytes(leaves[0].leafId + transferId);
    signed_.insert(signed_.end(), elsewhere.ciphertext.begin(), elsewhere.ciphertext.end());
    auto sig = crypto::signEcdsa(kK1, sender.priv, crypto::sha256(signed_));
    Bytes compact(sig.r.begin(), sig.r.end());
    compact.insert(compact.end(), sig.s.begin(), sig.s.end());
    EXPECT_TRUE(has(refusal([&](json::Object& c) {
                      leaf0(c)->set("ciphertext", toHex(elsewhere.ciphertext));
                      leaf0(c)->set("senderSignature", toHex(compact));
                    }),
                    "parameters.claim.leaves[0].ciphertext: it does not open with this wallet's "
                    "identity key"));
  }
  EXPECT_TRUE(has(refusal([&](json::Object& c) { leaf0(c)->set("senderSignature", "00ff"); }),
                  "parameters.claim.leaves[0].senderSignature: 2 bytes"));
  EXPECT_TRUE(has(refusal([&](json::Object& c) { c->set("senderIdentityPublicKey", "02"); }),
                  "parameters.claim.senderIdentityPublicKey"));
  EXPECT_TRUE(has(refusal([&](json::Object& c) {
                    c->getArray("leaves")->getObject(1)->set("leafId", leaves[0].leafId);
                  }),
                  "parameters.claim.leaves[1].leafId"));
  EXPECT_TRUE(has(refusal([&](json::Object& c) { c->set("threshold", 0); }),
                  "parameters.claim.threshold: 0"));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities);
}

TEST_P(SparkPolicyTest, FrostSharesAreDerivedFromTheRequestAndBadRequestsAreRefusedNamingTheField) {
  TestGateway gw(GetParam(), {"signing"});
  SparkFixture f(gw);
  // One message, group key and operator commitment for every request: what differs between
  // them is the key that signs.
  const std::string operatorId = std::string(62, '0') + "2a", hiding = KeyPair().pub,
                    binding = KeyPair().pub, verifyingKey = KeyPair().pub,
                    message = toHex(crypto::randomBytes(32));
  auto request = [&](const json::Object& derivation) {
    json::Object c = json::object();
    c->set("id", operatorId);
    c->set("hiding", hiding);
    c->set("binding", binding);
    json::Array commitments = json::array();
    commitments->add(c);
    json::Object r = json::object();
    r->set("derivation", derivation);
    r->set("message", message);
    r->set("verifyingKey", verifyingKey);
    r->set("operatorCommitments", commitments);
    return r;
  };
  auto derivation = [](const std::string& json) { return json::parseObject(json, "derivation"); };
  auto intent = [&](std::vector<json::Object> requests) {
    json::Array list = json::array();
    for (auto& r : requests) list->add(r);
    json::Object p = json::object();
    p->set("signWith", f.spark);
    p->set("signatures", list);
    return p;
  };
  auto submit = [&](const json::Object& p) {
    return f.o.root().submit("spark_sign_frost", "ACTIVITY_TYPE_SPARK_SIGN_FROST", f.o.org(), p);
  };
  // Every key a Spark wallet has, one request each: five keys, so five nonces and shares.
  std::vector<json::Object> requests{request(derivation(R"({"identity":{}})")),
                                     request(derivation(R"({"signingLeaf":{"leafId":"leaf-1"}})")),
                                     request(derivation(R"({"deposit":{}})")),
                                     request(derivation(R"({"staticDeposit":{"index":"7"}})")),
                                     request(derivation(R"({"htlcPreimage":{}})"))};
  auto p = intent(requests);
  auto signatures = resultOf(submit(p), "sparkSignFrostResult")->getArray("signatures");
  ASSERT_EQ(signatures->size(), requests.size());
  std::set<std::string> shares, hidings;
  for (size_t i = 0; i < signatures->size(); ++i) {
    auto s = signatures->getObject(static_cast<unsigned>(i));
    EXPECT_EQ(s->getValue<std::string>("signatureShare").size(), 64u);
    for (const char* commitment : {"hiding", "binding"}) {
      auto bytes = fromHex(s->getValue<std::string>(commitment));
      ASSERT_TRUE(bytes && bytes->size() == 33) << commitment;
      EXPECT_TRUE(crypto::normalizePublicKey(kK1, *bytes)) << commitment;
    }
    shares.insert(s->getValue<std::string>("signatureShare"));
    hidings.insert(s->getValue<std::string>("hiding"));
  }
  EXPECT_EQ(shares.size(), requests.size());
  EXPECT_EQ(hidings.size(), requests.size());
  // Nothing is kept between rounds: the same request (a new activity, its timestamp differs)
  // gives the same nonces and share.
  auto again =
      resultOf(submit(intent({requests[1]})), "sparkSignFrostResult")->getArray("signatures");
  EXPECT_EQ(json::stringify(again->getObject(0)), json::stringify(signatures->getObject(1)));

  const int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  auto has = [](const std::string& message, const std::string& part) {
    return message.find(part) != std::string::npos;
  };
  auto refusal = [&](const std::function<void(json::Object&)>& change) {
    auto r = request(derivation(R"({"identity":{}})"));
    change(r);
    return refusalOf([&] { return submit(intent({r})); });
  };
  auto commitment0 = [](json::Object& r) {
    return r->getArray("operatorCommitments")->getObject(0);
  };
  EXPECT_TRUE(has(refusal([](json::Object& r) { r->set("message", "00ff"); }),
                  "parameters.signatures[0].message: \"00ff\" is not a hex 32-byte sighash"));
  EXPECT_TRUE(
      has(refusal([](json::Object& r) { r->set("verifyingKey", "02" + std::string(64, '0')); }),
          "parameters.signatures[0].verifyingKey: \"02" + std::string(64, '0') +
              "\" is not a hex-encoded compressed secp256k1 public key"));
  EXPECT_TRUE(
      has(refusal([&](json::Object& r) {
            commitment0(r)->set("id", toHex(frost::sparkUserIdentifier().data(), 32));
          }),
          "parameters.signatures[0].operatorCommitments[0].id: it is the user's identifier"));
  EXPECT_TRUE(
      has(refusal([&](json::Object& r) { commitment0(r)->set("id", std::string(64, 'f')); }),
          "parameters.signatures[0].operatorCommitments[0].id: not a nonzero scalar"));
  EXPECT_TRUE(has(
      refusal([&](json::Object& r) { r->getArray("operatorCommitments")->add(commitment0(r)); }),
      "parameters.signatures[0].operatorCommitments[1].id: it appears twice"));
  EXPECT_TRUE(has(refusal([&](json::Object& r) { commitment0(r)->set("binding", "zz"); }),
                  "parameters.signatures[0].operatorCommitments[0].binding"));
  EXPECT_TRUE(has(refusal([&](json::Object& r) {
                    r->set("derivation", derivation(R"({"identity":{},"deposit":{}})"));
                  }),
                  "parameters.signatures[0].derivation: name exactly one of"));
  EXPECT_TRUE(has(refusal([&](json::Object& r) {
                    r->set("derivation", derivation(R"({"staticDeposit":{"index":"-1"}})"));
                  }),
                  "parameters.signatures[0].derivation.staticDeposit.index: -1"));
  EXPECT_TRUE(has(refusal([](json::Object& r) { r->set("operatorCommitments", json::array()); }),
                  "parameters.signatures[0].operatorCommitments: must not be empty"));
  EXPECT_TRUE(has(refusalOf([&] {
                    auto bad = intent({request(derivation(R"({"identity":{}})"))});
                    bad->set("signWith", f.ethereum);
                    return submit(bad);
                  }),
                  "is not a Spark wallet account"));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities);
}

}  // namespace
}  // namespace signet::test
