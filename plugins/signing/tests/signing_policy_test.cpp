// Turnkey's policy examples (tkhq/docs features/policies) that read the signing plugin's facts,
// through a real gateway: 11 (export one account), 12 (wallet.id errors when signing with a private
// key), 13 (DENY NO_OP unless EIP-712) and 18 (EIP-712 domain and message, with m['k'] access on
// lists).
#include "log/activity_log.hpp"
#include "store/given_texts.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class SigningPolicyTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SigningPolicyTest);

const std::string kToken = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

std::string permit(const std::string& token, int amount) {
  return R"({"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
    "PermitBatchTransferFrom":[{"name":"permitted","type":"TokenPermissions[]"},{"name":"spender","type":"address"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}],
    "TokenPermissions":[{"name":"token","type":"address"},{"name":"amount","type":"uint256"}]},
    "primaryType":"PermitBatchTransferFrom",
    "domain":{"name":"Permit2","chainId":1,"verifyingContract":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},
    "message":{"permitted":[{"token":")" +
         token + R"(","amount":")" + std::to_string(amount) +
         R"("}],"spender":"0x0000000000000000000000000000000000000002","nonce":"1","deadline":"1900000000"}})";
}

TEST_P(SigningPolicyTest, WalletPrivateKeyAndTypedDataFactsDecide) {
  TestGateway gw(GetParam(), {"signing"});
  Org o(gw);
  auto wallet = o.root()
                    .submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", o.org(),
                            json::parseObject(R"({"walletName":"w","accounts":[
        {"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"},
        {"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/1","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]})",
                                              "t"))
                    ->getObject("result")
                    ->getObject("createWalletResult");
  std::string walletId = wallet->getValue<std::string>("walletId");
  std::string a0 = wallet->getArray("addresses")->getElement<std::string>(0);
  std::string a1 = wallet->getArray("addresses")->getElement<std::string>(1);
  std::string keyId =
      o.root()
          .submit(
              "create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", o.org(),
              json::parseObject(
                  R"({"privateKeys":[{"privateKeyName":"k","curve":"CURVE_SECP256K1","privateKeyTags":[],"addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]})",
                  "t"))
          ->getObject("result")
          ->getObject("createPrivateKeysResultV2")
          ->getArray("privateKeys")
          ->getObject(0)
          ->getValue<std::string>("privateKeyId");
  auto u = o.user("U");
  Client asU = o.as(u);
  auto submit = [&](const json::Object& p) {
    return asU.submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", o.org(), p);
  };

  // 12: wallet.id is absent when signing with a private key: the policy errors.
  o.policy("sign with W", "EFFECT_ALLOW",
           "activity.action == 'SIGN' && wallet.id == '" + walletId +
               "' && activity.params.encoding == 'PAYLOAD_ENCODING_TEXT_UTF8'");
  EXPECT_EQ(
      status(submit(signParams(a0, "hi", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256"))),
      kCompleted);
  auto withKey =
      submit(signParams(keyId, "hi", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256"));
  EXPECT_EQ(status(withKey), kFailed);
  EXPECT_NE(failureOf(withKey).find("missing field"), std::string::npos) << failureOf(withKey);

  // 18: typed data by domain and message.
  o.policy("permit2 USDC under 1e8", "EFFECT_ALLOW",
           "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.domain.chain_id == 1 && "
           "eth.eip_712.primary_type == 'PermitBatchTransferFrom' && "
           "eth.eip_712.message['permitted'].all(p, p['token'] == '" +
               kToken +
               "') && eth.eip_712.message['permitted'].any(p, p['amount'] < 100000000) && "
               "eth.eip_712.message['permitted'].count() <= 2");
  EXPECT_EQ(status(submit(signParams(a1, permit(kToken, 5), "PAYLOAD_ENCODING_EIP712",
                                     "HASH_FUNCTION_NO_OP"))),
            kCompleted);
  EXPECT_EQ(status(submit(signParams(a1, permit("0x0000000000000000000000000000000000000bad", 5),
                                     "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"))),
            kFailed);
  EXPECT_EQ(status(submit(signParams(a1, permit(kToken, 200000000), "PAYLOAD_ENCODING_EIP712",
                                     "HASH_FUNCTION_NO_OP"))),
            kFailed);

  // 13: an explicit DENY of raw NO_OP digests wins over an ALLOW; EIP-712 is exempt.
  o.policy("sign with a1", "EFFECT_ALLOW",
           "activity.action == 'SIGN' && wallet_account.address == '" + a1 + "'");
  std::string denyBlind = o.policy(
      "no blind digests", "EFFECT_DENY",
      "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function "
      "== 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'");
  auto digest = crypto::toHex(crypto::sha256(std::string_view("x")));
  auto blind =
      submit(signParams(a1, digest, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"));
  EXPECT_EQ(status(blind), kFailed);
  EXPECT_NE(failureOf(blind).find("no blind digests"), std::string::npos);
  EXPECT_EQ(status(submit(signParams(a1, permit("0x0000000000000000000000000000000000000bad", 5),
                                     "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"))),
            kCompleted);

  // That DENY reads activity.params.hash_function, which other activities do not have: with
  // no short-circuit it errors, and an erroring DENY denies them all. Remove it first.
  json::Object drop = json::object();
  drop->set("policyId", denyBlind);
  EXPECT_EQ(status(o.root().submit("delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", o.org(), drop)),
            kCompleted);

  // 11: export one account only.
  o.policy("export a0", "EFFECT_ALLOW",
           "activity.action == 'EXPORT' && wallet_account.address == '" + a0 + "'");
  auto target = newKey().publicKey;
  json::Object ex = json::object();
  ex->set("address", a0);
  ex->set("targetPublicKey", target);
  auto exported =
      asU.submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", o.org(), ex);
  EXPECT_EQ(status(exported), kCompleted) << json::stringify(exported);
  ex->set("address", a1);
  EXPECT_EQ(status(asU.submit("export_wallet_account", "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
                              o.org(), ex)),
            kFailed);
}

// A signature is decided and signed on a snapshot, and its row's texts are made there too, on
// the request's thread (ActivityPipeline::textsAhead), and on SQLite its activity log leaf and the
// leaf's hash, which its write gives the store's trigger (activity_log::givenLeaf): what the store
// keeps is what the answer said, with the one evaluation of its one vote, and each leaf is the row
// as it was then, allowed, denied or waiting for an approval.
TEST_P(SigningPolicyTest, ASignatureIsStoredAsItAnsweredWithTheEvaluationOfItsVote) {
  TestGateway gw(GetParam(), {"signing"});
  Org o(gw);
  const bool sqlite = GetParam() == Backend::kSqlite;
  const std::string address = newEthereumAddress(o.root(), o.org(), "w");
  auto u = o.user("U");
  std::string allow = o.policy("U signs 'yes'", "EFFECT_ALLOW",
                               "activity.action == 'SIGN' && activity.params.payload == 'yes'");
  auto sign = [&](const std::string& payload) {
    const uint64_t given = GivenTexts::found();
    auto answered = o.as(u).submit(
        "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", o.org(),
        signParams(address, payload, "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256"));
    // The trigger took the leaf and its hash the write gave, rather than making its own.
    EXPECT_EQ(GivenTexts::found() - given, sqlite ? 2u : 0u) << payload;
    return answered;
  };
  auto stored = [&](const json::Object& answered) {
    json::Object q = orgBody(o.org());
    q->set("activityId", answered->getValue<std::string>("id"));
    return o.root().query("get_activity", q)->getObject("activity");
  };
  auto evaluations = [&](const json::Object& answered) {
    json::Object q = orgBody(o.org());
    q->set("activityId", answered->getValue<std::string>("id"));
    return o.root().query("get_policy_evaluations", q)->getArray("policyEvaluations");
  };
  // The activity's leaves, oldest first, and the leaf of its row as it is now.
  auto leaves = [&](const json::Object& activity) {
    std::vector<std::string> texts;
    gw.gateway().database().read([&](Db& db) {
      for (const auto& row :
           db.query("SELECT leaf FROM activity_log_leaves WHERE activity_id = ? ORDER BY idx",
                    {activity->getValue<std::string>("id")}))
        texts.push_back(row.str("leaf"));
    });
    return texts;
  };
  auto rowLeaf = [&](const json::Object& activity) {
    std::string leaf;
    gw.gateway().database().read([&](Db& db) {
      auto row = db.queryOne(
          std::string("SELECT ") + activity_log::kLeafColumns + " FROM activities WHERE id = ?",
          {activity->getValue<std::string>("id")});
      ASSERT_TRUE(row);
      leaf = activity_log::leafOf(*row);
    });
    return leaf;
  };
  // The answer and the stored row, field by field, but canApprove and canReject, which are of
  // who asks (U answered, the root reads); and its one leaf, the row's.
  auto expectStoredAsAnswered = [&](const json::Object& answered) {
    EXPECT_EQ(leaves(answered), std::vector<std::string>{rowLeaf(answered)});
    json::Object read = stored(answered);
    for (const char* field : {"id", "organizationId", "type", "status", "fingerprint", "intent",
                              "result", "votes", "failure", "createdAt", "updatedAt"}) {
      ASSERT_EQ(read->has(field), answered->has(field)) << field;
      if (answered->has(field)) {
        EXPECT_EQ(json::stringify(read->get(field)), json::stringify(answered->get(field)))
            << field;
      }
    }
  };

  auto signed_ = sign("yes");
  ASSERT_EQ(status(signed_), kCompleted) << json::stringify(signed_);
  expectStoredAsAnswered(signed_);
  auto vote = signed_->getArray("votes")->getObject(0);
  EXPECT_EQ(vote->getObject("user")->getValue<std::string>("userId"), u);
  auto allowed = evaluations(signed_);
  ASSERT_EQ(allowed->size(), 1u) << json::stringify(allowed);
  EXPECT_EQ(allowed->getObject(0)->getValue<std::string>("voteId"),
            vote->getValue<std::string>("id"));
  auto outcomes = allowed->getObject(0)->getArray("policyEvaluations");
  ASSERT_EQ(outcomes->size(), 1u);
  EXPECT_EQ(outcomes->getObject(0)->getValue<std::string>("policyId"), allow);
  EXPECT_EQ(outcomes->getObject(0)->getValue<std::string>("outcome"), "OUTCOME_ALLOW");

  auto refused = sign("no");
  ASSERT_EQ(status(refused), kFailed) << json::stringify(refused);
  expectStoredAsAnswered(refused);
  auto denied = evaluations(refused);
  ASSERT_EQ(denied->size(), 1u) << json::stringify(denied);
  EXPECT_EQ(denied->getObject(0)->getValue<std::string>("voteId"),
            refused->getArray("votes")->getObject(0)->getValue<std::string>("id"));

  // One that waits for V's approval: its first leaf, the one its write gave, is the row as it
  // waited (which `signet log verify` no longer sees once the approval appends the next).
  auto v = o.user("V");
  o.policy("U signs 'wait' once V approves", "EFFECT_ALLOW",
           "activity.action == 'SIGN' && activity.params.payload == 'wait'",
           "approvers.any(user, user.id == '" + v + "')");
  auto waiting = sign("wait");
  ASSERT_EQ(status(waiting), kConsensus) << json::stringify(waiting);
  expectStoredAsAnswered(waiting);
  const std::string asItWaited = rowLeaf(waiting);
  EXPECT_EQ(status(o.vote(v, waiting)), kCompleted);
  EXPECT_EQ(leaves(waiting), (std::vector<std::string>{asItWaited, rowLeaf(waiting)}));
}

}  // namespace
}  // namespace signet::test
