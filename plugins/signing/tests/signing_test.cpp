// The signing plugin through a real gateway: wallets and accounts from BIP-39 mnemonics
// sealed in the keyring, private keys, raw signing on secp256k1 (ECDSA with recovery id,
// Taproot Schnorr), Ed25519 and P-256, signWith by address or id, export guards, and the
// hooks create_sub_organization, list_suborgs and delete_sub_organization use.
#include "activity/activity_store.hpp"
#include "activity/handler_context.hpp"
#include "keys/key_material.hpp"
#include "signet/bundles.hpp"
#include "signet/hd_keys.hpp"
#include "store/database.hpp"
#include "support/auth_fixtures.hpp"
#include "support/metric_sample.hpp"
#include "support/query_plans.hpp"
#include "support/signing_fixtures.hpp"

namespace signet::test {
namespace {

class SigningTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SigningTest);

// init_import_wallet for the root user; the target key from its signed bundle (empty and a
// test failure when the bundle is not signed by this gateway).
Bytes importTarget(TestGateway& gw) {
  json::Object init = json::object();
  init->set("userId", gw.root().userId);
  auto bundle =
      resultOf(gw.rootClient().submit("init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
                                      gw.root().organizationId, init),
               "initImportWalletResult")
          ->getValue<std::string>("importBundle");
  auto data = bundles::openEnvelope(bundle, gw.gateway().signerPublicKey());
  EXPECT_TRUE(data) << bundle;
  if (!data) return {};
  return *fromHex(json::parseObject(*data, "d")->getValue<std::string>("targetPublic"));
}

crypto::EcdsaSignature rs(const json::Object& sig) {
  crypto::EcdsaSignature s;
  auto r = *fromHex(sig->getValue<std::string>("r"));
  auto sv = *fromHex(sig->getValue<std::string>("s"));
  std::copy(r.begin(), r.end(), s.r.begin());
  std::copy(sv.begin(), sv.end(), s.s.begin());
  return s;
}

std::string publicKeyOf(TestGateway& gw, const std::string& walletId, const std::string& address) {
  auto body = orgBody(gw.root().organizationId);
  body->set("walletId", walletId);
  body->set("address", address);
  return gw.rootClient()
      .query("get_wallet_account", body)
      ->getObject("account")
      ->getValue<std::string>("publicKey");
}

// create_private_keys with `params`; the first key's id.
std::string createPrivateKey(TestGateway& gw, const std::string& org, const json::Object& params) {
  return resultOf(gw.rootClient().submit("create_private_keys",
                                         "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", org, params),
                  "createPrivateKeysResultV2")
      ->getArray("privateKeys")
      ->getObject(0)
      ->getValue<std::string>("privateKeyId");
}

// delete_private_keys of one key, without the export it would otherwise ask for first.
void deleteUnexportedPrivateKey(TestGateway& gw, const std::string& org, const std::string& id) {
  json::Object del = json::object();
  del->set("privateKeyIds", json::stringArray({id}));
  del->set("deleteWithoutExport", true);
  resultOf(
      gw.rootClient().submit("delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", org, del),
      "deletePrivateKeysResult");
}

TEST_P(SigningTest, WalletAccountsSignWithTheirSchemes) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto created = resultOf(
      gw.rootClient().submit(
          "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org,
          walletParams(
              "main",
              {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
               account("CURVE_ED25519", "m/44'/501'/0'/0'", "ADDRESS_FORMAT_SOLANA"),
               account("CURVE_SECP256K1", "m/86'/0'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR"),
               account("CURVE_P256", "m/0'/0", "ADDRESS_FORMAT_COMPRESSED")})),
      "createWalletResult");
  std::string walletId = created->getValue<std::string>("walletId");
  auto addresses = created->getArray("addresses");
  ASSERT_EQ(addresses->size(), 4u);
  std::string eth = addresses->getElement<std::string>(0);
  std::string sol = addresses->getElement<std::string>(1);
  std::string taproot = addresses->getElement<std::string>(2);
  std::string p256 = addresses->getElement<std::string>(3);
  EXPECT_EQ(eth.substr(0, 2), "0x");
  EXPECT_EQ(taproot.substr(0, 4), "bc1p");
  // The mnemonic is in the keyring only, sealed.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ? AND kind = 'bip39-mnemonic'",
                     {"wallet-mnemonic:" + walletId}),
            1);

  auto digest = crypto::keccak256(std::string_view("hello"));
  // ECDSA: low-S, verifies under the account key, v is the recovery id; 0x is optional, and
  // the address matches whatever its case.
  std::string lowerEth = eth;
  for (auto& c : lowerEth) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto sig = resultOf(
      gw.rootClient().submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                             signParams(lowerEth, "0x" + crypto::toHex(digest),
                                        "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")),
      "signRawPayloadResult");
  EXPECT_EQ(sig->getValue<std::string>("r").size(), 64u);
  EXPECT_EQ(sig->getValue<std::string>("s").size(), 64u);
  EXPECT_TRUE(sig->getValue<std::string>("v") == "00" || sig->getValue<std::string>("v") == "01");
  EXPECT_LT(sig->getValue<std::string>("s"),
            "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1");  // low-S
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1,
                                  *fromHex(publicKeyOf(gw, walletId, eth)), digest, rs(sig)));
  // KECCAK256 over UTF-8 gives the same digest.
  auto hashed = resultOf(
      gw.rootClient().submit(
          "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
          signParams(eth, "hello", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256")),
      "signRawPayloadResult");
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1,
                                  *fromHex(publicKeyOf(gw, walletId, eth)), digest, rs(hashed)));

  // Ed25519: PureEdDSA over the message; batch results come back in input order.
  json::Object batch = json::object();
  batch->set("signWith", sol);
  batch->set("payloads", json::stringArray({"first", "second"}));
  batch->set("encoding", "PAYLOAD_ENCODING_TEXT_UTF8");
  batch->set("hashFunction", "HASH_FUNCTION_NOT_APPLICABLE");
  auto sigs = resultOf(gw.rootClient().submit("sign_raw_payloads",
                                              "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", org, batch),
                       "signRawPayloadsResult")
                  ->getArray("signatures");
  ASSERT_EQ(sigs->size(), 2u);
  Bytes solKey = *fromHex(publicKeyOf(gw, walletId, sol));
  for (size_t i = 0; i < 2; ++i) {
    auto s = sigs->getObject(static_cast<unsigned>(i));
    Bytes raw = *fromHex(s->getValue<std::string>("r") + s->getValue<std::string>("s"));
    std::string msg = i == 0 ? "first" : "second";
    EXPECT_TRUE(crypto::verifyEd25519(solKey, reinterpret_cast<const uint8_t*>(msg.data()),
                                      msg.size(), raw));
    EXPECT_EQ(s->getValue<std::string>("v"), "00");
  }

  // Taproot: BIP-341 Schnorr that verifies under the tweaked output key.
  auto tr = resultOf(
      gw.rootClient().submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                             signParams(taproot, crypto::toHex(digest),
                                        "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")),
      "signRawPayloadResult");
  auto output = crypto::taprootOutputKey(*fromHex(publicKeyOf(gw, walletId, taproot)));
  EXPECT_TRUE(crypto::verifySchnorr(
      *output, digest, *fromHex(tr->getValue<std::string>("r") + tr->getValue<std::string>("s"))));

  // P-256 ECDSA over SHA-256.
  auto p =
      resultOf(gw.rootClient().submit(
                   "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                   signParams(p256, "hello", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_SHA256")),
               "signRawPayloadResult");
  EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kP256, *fromHex(p256),
                                  crypto::sha256(std::string_view("hello")), rs(p)));

  // Unsupported combinations fail naming curve, encoding and hash function.
  EXPECT_EQ(failureOf(gw.rootClient().submit(
                "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                signParams(sol, "hello", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256"))),
            "unsupported signing combination: Ed25519 with PAYLOAD_ENCODING_TEXT_UTF8 and "
            "HASH_FUNCTION_KECCAK256");
  EXPECT_NE(failureOf(gw.rootClient().submit(
                          "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                          signParams("0x" + std::string(40, '1'), "00",
                                     "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")))
                .find("no wallet account address, private key address or private key id"),
            std::string::npos);

  // persist: false derives without storing.
  json::Object more = json::object();
  more->set("walletId", walletId);
  json::Array accs = json::array();
  accs->add(account("CURVE_SECP256K1", "m/44'/60'/0'/0/1", "ADDRESS_FORMAT_ETHEREUM"));
  more->set("accounts", accs);
  more->set("persist", false);
  resultOf(gw.rootClient().submit("create_wallet_accounts", "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
                                  org, more),
           "createWalletAccountsResult");
  EXPECT_EQ(
      gw.count("SELECT COUNT(*) FROM signing_wallet_accounts WHERE wallet_id = ?", {walletId}), 4);
  // Deleting an unexported wallet needs deleteWithoutExport; then its secret is gone.
  json::Object del = json::object();
  del->set("walletIds", json::stringArray({walletId}));
  EXPECT_NE(
      failureOf(gw.rootClient().submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", org, del))
          .find("has not been exported"),
      std::string::npos);
  del->set("deleteWithoutExport", true);
  resultOf(gw.rootClient().submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", org, del),
           "deleteWalletsResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id IN (?, ?)",
                     {"wallet-mnemonic:" + walletId, "wallet-seed:" + walletId}),
            0);
}

TEST_P(SigningTest, PrivateKeysSignByIdAndAddress) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto params = json::parseObject(
      R"({"privateKeys":[{"privateKeyName":"hot","curve":"CURVE_SECP256K1","privateKeyTags":[],
          "addressFormats":["ADDRESS_FORMAT_ETHEREUM","ADDRESS_FORMAT_TRON"]}]})",
      "t");
  auto key = resultOf(gw.rootClient().submit("create_private_keys",
                                             "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", org, params),
                      "createPrivateKeysResultV2")
                 ->getArray("privateKeys")
                 ->getObject(0);
  std::string id = key->getValue<std::string>("privateKeyId");
  std::string eth = key->getArray("addresses")->getObject(0)->getValue<std::string>("address");
  auto body = orgBody(org);
  body->set("privateKeyId", id);
  auto got = gw.rootClient().query("get_private_key", body)->getObject("privateKey");
  Bytes pub = *fromHex(got->getValue<std::string>("publicKey"));
  EXPECT_EQ(pub.size(), 65u);  // secp256k1 keys are shown uncompressed
  auto digest = crypto::sha256(std::string_view("payload"));
  for (const std::string& signWith : {id, eth}) {
    auto sig = resultOf(
        gw.rootClient().submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                               signParams(signWith, crypto::toHex(digest),
                                          "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")),
        "signRawPayloadResult");
    EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kSecp256k1, pub, digest, rs(sig))) << signWith;
  }
  // A mismatched format is bad input: nothing is stored.
  auto bad = json::parseObject(
      R"({"privateKeys":[{"privateKeyName":"x","curve":"CURVE_ED25519","privateKeyTags":[],
          "addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]})",
      "t");
  EXPECT_THROW(gw.rootClient().submit("create_private_keys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
                                      org, bad),
               RequestError);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_private_keys"), 1);
  deleteUnexportedPrivateKey(gw, org, id);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ?", {"private-key:" + id}), 0);
}

// signWith is looked up by organization and address in any case (an Ethereum address in its
// checksum case or not): through the index of addresses in lower case (schema migration 7) on
// both stores. The index by organization and address as stored would read every account of the
// organization on every signature.
TEST_P(SigningTest, SignWithIsLookedUpThroughAnIndex) {
  TestGateway gw(GetParam(), {"signing"});
  gw.gateway().database().read([&](Db& db) {
    const std::vector<std::string> values{"org-1", "0xAbC", "org-1", "0xAbC", "org-1", "0xAbC"};
    const auto steps = planOf(db, signing::kSignWithTargets, values);
    EXPECT_EQ(fullScans(db, steps), std::vector<std::string>{});
    // Both addresses' look-ups have the address in lower case as their index's condition, not
    // a filter over the organization's rows: SQLite shows it as the expression <expr>,
    // PostgreSQL in an Index Cond.
    std::string plan;
    int bound = 0;
    for (const auto& step : steps) {
      plan += step + "\n";
      if (step.find("<expr>=?") != std::string::npos ||
          (step.find("Index Cond:") != std::string::npos &&
           step.find("lower(") != std::string::npos && step.find("address)") != std::string::npos))
        ++bound;
    }
    EXPECT_EQ(bound, 2) << plan;
  });
  if (GetParam() != Backend::kPostgres) return;
  // The plan PostgreSQL keeps for the prepared statement, made here on a young store whose
  // keyring table was never analyzed, with sequential scans allowed: the key's sealed cells are
  // a look-up by the secret's id, where a join was a hash of every secret. (Once analyzed, a table
  // of a page or two may be scanned instead; a kept plan is made again after each analysis.)
  auto connection = openConnection(gw.gateway().config().database);
  std::string numbered;
  int n = 0;
  for (char c : signing::kSignWithTargets)
    numbered += c == '?' ? "$" + std::to_string(++n) : std::string(1, c);
  connection->exec("SET plan_cache_mode = force_generic_plan");
  connection->exec("PREPARE targets AS " + numbered);
  std::string plan;
  for (const auto& row :
       connection->query("EXPLAIN EXECUTE targets('org-1', '0xAbC', 'org-1', '0xAbC', 'org-1', "
                         "'0xAbC')"))
    plan += row.str("QUERY PLAN") + "\n";
  EXPECT_NE(plan.find("Index Scan using signet_secrets_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan on signet_secrets"), std::string::npos) << plan;
}

// On PostgreSQL a signature's signWith lookup is sent ahead (ActivitySpec::readAhead) and goes
// with the snapshot's first statement, the directory's generation read: its facts then cost no
// round trip of their own. The snapshot is played here as the pipeline plays it, on a connection
// that counts its round trips, with and without the read ahead.
TEST_P(SigningTest, OnPostgresTheSignWithLookupGoesWithTheSnapshotsFirstRead) {
  if (GetParam() != Backend::kPostgres) return;  // not called on SQLite: no round trip to save
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  std::string id = createPrivateKey(gw, org,
                                    json::parseObject(R"({"privateKeys":[{
      "privateKeyName":"ahead","curve":"CURVE_SECP256K1","privateKeyTags":[],
      "addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]})",
                                                      "t"));
  const ActivitySpec* spec =
      gw.gateway().catalog().activityOfType("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2");
  ASSERT_TRUE(spec && spec->readAhead);
  const json::Object params =
      signParams(id, "00ff", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256");
  auto connection = openConnection(gw.gateway().config().database);
  auto roundTrips = [&](bool ahead) {
    const size_t before = connection->roundTrips();
    connection->beginSnapshot();
    RequestCache cache;
    const Caller nobody;
    HandlerContext ctx(gw.gateway(), *connection, nobody, org, {}, spec->type, &cache);
    if (ahead) spec->readAhead(ctx, params);
    connection->queryOne("SELECT value FROM directory_generation WHERE id = 1");
    auto facts = spec->facts(ctx, params);
    EXPECT_EQ(facts->getObject("private_key")->getValue<std::string>("id"), id);
    connection->endSnapshot();
    EXPECT_TRUE(connection->alive());
    return connection->roundTrips() - before;
  };
  roundTrips(true);  // the statements prepared
  roundTrips(false);
  EXPECT_EQ(roundTrips(true) + 1, roundTrips(false));
}

// A signature is admitted without looking its body up first: its row is inserted unless the
// body is stored. A body sent again is still that one activity, before its key is deleted and
// after, when signing it again fails: the stored activity answers, and nothing more is stored.
TEST_P(SigningTest, ABodySentAgainIsItsStoredSignatureEvenOnceItsKeyIsGone) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto params = json::parseObject(
      R"({"privateKeys":[{"privateKeyName":"once","curve":"CURVE_SECP256K1","privateKeyTags":[],
          "addressFormats":["ADDRESS_FORMAT_ETHEREUM"]}]})",
      "t");
  std::string id = createPrivateKey(gw, org, params);
  const std::string body = activityBody(
      "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
      signParams(id, "00ff", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"));
  // Policy decisions are counted once what they decided is stored: the body sent again is
  // decided again on its snapshot, but its row is not written, and nothing is counted.
  auto allowed = [&] {
    return metricSample(httpGet(gw.baseUrl(), "/metrics").body,
                        R"(signet_policy_outcomes_total{outcome="ALLOW"})");
  };
  const double allowedBefore = allowed();
  auto first = gw.rootClient().submitRaw("sign_raw_payload", body);
  ASSERT_EQ(first->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  EXPECT_EQ(allowed(), allowedBefore + 1);
  const std::string stored = json::stringify(first);
  // The policy evaluations kept in the activity's row.
  auto evaluationsStored = [&] {
    int64_t n = -1;
    gw.write([&](Db& db) {
      n = static_cast<int64_t>(
          activities::evaluationsOf(db, org, first->getValue<std::string>("id")).size());
    });
    return n;
  };
  auto countStored = [&] {
    return std::pair(gw.count("SELECT COUNT(*) FROM activities WHERE type = ?",
                              {"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"}),
                     evaluationsStored());
  };
  EXPECT_EQ(json::stringify(gw.rootClient().submitRaw("sign_raw_payload", body)), stored);
  EXPECT_EQ(countStored(), std::pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(allowed(), allowedBefore + 1);

  deleteUnexportedPrivateKey(gw, org, id);
  // A new body with the deleted key fails; the stored one still answers as it did.
  EXPECT_NE(
      failureOf(gw.rootClient().submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                                       signParams(id, "00fe", "PAYLOAD_ENCODING_HEXADECIMAL",
                                                  "HASH_FUNCTION_KECCAK256")))
          .find("signWith"),
      std::string::npos);
  EXPECT_EQ(json::stringify(gw.rootClient().submitRaw("sign_raw_payload", body)), stored);
  EXPECT_EQ(countStored(), std::pair(int64_t{2}, int64_t{1}));
}

TEST_P(SigningTest, SubOrganizationWalletsListByAddressAndGuardDeletion) {
  TestGateway gw(GetParam(), {"signing"});
  auto userKey = newKey();
  auto p = json::parseObject(
      R"({"subOrganizationName":"end user","rootQuorumThreshold":1,"rootUsers":[{"userName":"alice","apiKeys":[{"apiKeyName":"k","publicKey":")" +
          userKey.publicKey +
          R"(","curveType":"API_KEY_CURVE_P256"}],"authenticators":[],"oauthProviders":[]}],
          "wallet":{"walletName":"default","accounts":[{"curve":"CURVE_SECP256K1","pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0","addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]}})",
      "t");
  // A wrong wallet is refused (400) naming its place in the request, and nothing of the
  // sub-organization is stored.
  auto refusal = [&] {
    try {
      gw.rootClient().submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                             gw.root().organizationId, p);
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto wallet = p->getObject("wallet");
  auto account = wallet->getArray("accounts")->getObject(0);
  account->remove("curve");
  EXPECT_EQ(refusal(), "missing required field parameters.wallet.accounts[0].curve");
  account->set("curve", "CURVE_SECP256K1");
  wallet->set("walletName", "");
  EXPECT_EQ(refusal(), "invalid field parameters.wallet.walletName: must not be empty");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM organizations WHERE parent_id IS NOT NULL"), 0);
  wallet->set("walletName", "default");
  auto r = resultOf(
      gw.rootClient().submit("create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
                             gw.root().organizationId, p),
      "createSubOrganizationResultV7");
  std::string sub = r->getValue<std::string>("subOrganizationId");
  std::string address = r->getObject("wallet")->getArray("addresses")->getElement<std::string>(0);
  auto q = orgBody(gw.root().organizationId);
  q->set("filterType", "WALLET_ACCOUNT_ADDRESS");
  q->set("filterValue", address);
  auto ids = gw.rootClient().query("list_suborgs", q)->getArray("organizationIds");
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_EQ(ids->getElement<std::string>(0), sub);
  // The sub-organization's own user signs with its wallet.
  auto sig =
      resultOf(gw.clientWith(userKey.stamper)
                   .submit("sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", sub,
                           signParams(address, crypto::toHex(crypto::sha256(std::string_view("x"))),
                                      "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP")),
               "signRawPayloadResult");
  EXPECT_EQ(sig->getValue<std::string>("r").size(), 64u);
  json::Object del = json::object();
  del->set("subOrganizationId", sub);
  EXPECT_NE(failureOf(gw.clientWith(userKey.stamper)
                          .submit("delete_sub_organization",
                                  "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", sub, del))
                .find("has not been exported"),
            std::string::npos);
  del->set("deleteWithoutExport", true);
  resultOf(
      gw.clientWith(userKey.stamper)
          .submit("delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", sub, del),
      "deleteSubOrganizationResult");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallets"), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE kind = 'bip39-mnemonic'"), 0);
}

TEST_P(SigningTest, PrivateKeyTagsExportMarksAndImportRefusals) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto tag =
      resultOf(gw.rootClient().submit(
                   "create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", org,
                   json::parseObject(R"({"privateKeyTagName":"hot","privateKeyIds":[]})", "t")),
               "createPrivateKeyTagResult")
          ->getValue<std::string>("privateKeyTagId");
  auto params = json::parseObject(
      R"({"privateKeys":[{"privateKeyName":"k","curve":"CURVE_ED25519","privateKeyTags":[")" + tag +
          R"("],"addressFormats":["ADDRESS_FORMAT_SOLANA"]}]})",
      "t");
  std::string id = createPrivateKey(gw, org, params);
  auto body = orgBody(org);
  body->set("privateKeyId", id);
  EXPECT_EQ(gw.rootClient()
                .query("get_private_key", body)
                ->getObject("privateKey")
                ->getArray("privateKeyTags")
                ->getElement<std::string>(0),
            tag);
  auto tags =
      gw.rootClient().query("list_private_key_tags", orgBody(org))->getArray("privateKeyTags");
  ASSERT_EQ(tags->size(), 1u);
  EXPECT_EQ(tags->getObject(0)->getValue<std::string>("tagType"), "TAG_TYPE_PRIVATE_KEY");

  // Exporting marks the key exported: it may then be deleted without deleteWithoutExport.
  auto target = newSessionKey();
  json::Object ex = json::object();
  ex->set("privateKeyId", id);
  ex->set("targetPublicKey", target.publicKey);
  resultOf(
      gw.rootClient().submit("export_private_key", "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", org, ex),
      "exportPrivateKeyResult");
  json::Object del = json::object();
  del->set("privateKeyIds", json::stringArray({id}));
  resultOf(
      gw.rootClient().submit("delete_private_keys", "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", org, del),
      "deletePrivateKeysResult");
  json::Object dt = json::object();
  dt->set("privateKeyTagIds", json::stringArray({tag}));
  auto removed = resultOf(gw.rootClient().submit("delete_private_key_tags",
                                                 "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", org, dt),
                          "deletePrivateKeyTagsResult");
  EXPECT_EQ(removed->getArray("privateKeyIds")->size(), 0u);  // the key went with its deletion

  // Import without init, then with a bundle that is not a mnemonic.
  json::Object im = json::object();
  im->set("userId", gw.root().userId);
  im->set("walletName", "imported");
  im->set("accounts", json::array());
  im->set("encryptedBundle", R"({"encappedPublic":"04ab","ciphertext":"00"})");
  EXPECT_NE(
      failureOf(gw.rootClient().submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", org, im))
          .find("run init_import_wallet first"),
      std::string::npos);
  auto targetPublic = importTarget(gw);
  ASSERT_FALSE(targetPublic.empty());
  std::string notWords = "correct horse battery staple";
  im->set("encryptedBundle",
          bundles::sealedJson(bundles::seal(
              targetPublic, reinterpret_cast<const uint8_t*>(notWords.data()), notWords.size())));
  try {
    gw.rootClient().submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", org, im);
    ADD_FAILURE() << "a bad mnemonic was imported";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid mnemonic"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_wallets"), 0);
}

TEST_P(SigningTest, AppProofsForDerivedAddresses) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto params = walletParams(
      "proved", {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
                 account("CURVE_ED25519", "m/44'/501'/0'/0'", "ADDRESS_FORMAT_SOLANA")});
  json::Object body = json::object();
  body->set("type", "ACTIVITY_TYPE_CREATE_WALLET");
  body->set("timestampMs", std::to_string(systemNowMs()));
  body->set("organizationId", org);
  body->set("parameters", params);
  body->set("generateAppProofs", true);
  auto activity = gw.rootClient().submitRaw("create_wallet", json::stringify(body));
  auto result = resultOf(activity, "createWalletResult");
  auto proofs = activity->getArray("appProofs");
  ASSERT_TRUE(proofs);
  ASSERT_EQ(proofs->size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    auto proof = proofs->getObject(i);
    EXPECT_EQ(proof->getValue<std::string>("scheme"), "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256");
    Bytes key = *fromHex(proof->getValue<std::string>("publicKey"));
    ASSERT_EQ(key.size(), 130u);
    std::string payload = proof->getValue<std::string>("proofPayload");
    auto claims = json::parseObject(payload, "proof")->getObject("addressDerivationProof");
    EXPECT_EQ(claims->getValue<std::string>("address"),
              result->getArray("addresses")->getElement<std::string>(i));
    EXPECT_EQ(claims->getValue<std::string>("walletId"), result->getValue<std::string>("walletId"));
    EXPECT_EQ(claims->getValue<std::string>("organizationId"), org);
    Bytes sig = *fromHex(proof->getValue<std::string>("signature"));
    crypto::EcdsaSignature s;
    std::copy(sig.begin(), sig.begin() + 32, s.r.begin());
    std::copy(sig.begin() + 32, sig.end(), s.s.begin());
    EXPECT_TRUE(crypto::verifyEcdsa(crypto::Curve::kP256, Bytes(key.begin() + 65, key.end()),
                                    crypto::sha256(payload), s));
  }
  // list_app_proofs answers the same proofs from the store.
  json::Object query = orgBody(org);
  query->set("activityId", activity->getValue<std::string>("id"));
  auto listed = gw.rootClient().query("list_app_proofs", query)->getArray("appProofs");
  EXPECT_EQ(json::stringify(listed), json::stringify(proofs));
  // Without the flag there are none.
  auto plain = gw.rootClient().submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org,
                                      walletParams("unproved", {}));
  EXPECT_FALSE(plain->has("appProofs"));
  query->set("activityId", plain->getValue<std::string>("id"));
  EXPECT_EQ(gw.rootClient().query("list_app_proofs", query)->getArray("appProofs")->size(), 0u);
  // Another organization's activity is not found from here.
  auto [other, otherKey] = gw.createOrganization("other");
  json::Object elsewhere = orgBody(other.organizationId);
  elsewhere->set("activityId", activity->getValue<std::string>("id"));
  EXPECT_THROW(gw.clientWith(otherKey).query("list_app_proofs", elsewhere), RequestError);
}

TEST_P(SigningTest, ImportedMnemonicWithPassphraseDerivesWithIt) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  auto target = importTarget(gw);
  ASSERT_FALSE(target.empty());
  // "mnemonic\npassphrase", as export returns it (swagger ExportWalletResult).
  std::string plain =
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
      "about\nTREZOR";
  auto im =
      walletParams("with passphrase",
                   {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM")});
  im->set("userId", gw.root().userId);
  im->set("encryptedBundle",
          bundles::sealedJson(
              bundles::seal(target, reinterpret_cast<const uint8_t*>(plain.data()), plain.size())));
  auto r = resultOf(gw.rootClient().submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", org, im),
                    "importWalletResult");
  // @scure/bip32 with the same seed (BIP-39 passphrase "TREZOR") gives this account.
  EXPECT_EQ(r->getArray("addresses")->getElement<std::string>(0),
            "0x9c32F71D4DB8Fb9e1A58B0a80dF79935e7256FA6");
  auto body = orgBody(org);
  body->set("walletId", r->getValue<std::string>("walletId"));
  EXPECT_TRUE(
      gw.rootClient().query("get_wallet", body)->getObject("wallet")->getValue<bool>("imported"));

  // The seed (with its passphrase) is sealed beside the mnemonic, so new accounts skip PBKDF2;
  // a wallet stored before seeds were sealed derives them from the mnemonic, to the same keys.
  auto addAccount = [&](const std::string& walletId) {
    json::Array accounts = json::array();
    accounts->add(account("CURVE_SECP256K1", "m/44'/60'/0'/0/1", "ADDRESS_FORMAT_ETHEREUM"));
    json::Object p = json::object();
    p->set("walletId", walletId);
    p->set("accounts", accounts);
    return resultOf(gw.rootClient().submit("create_wallet_accounts",
                                           "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", org, p),
                    "createWalletAccountsResult")
        ->getArray("addresses")
        ->getElement<std::string>(0);
  };
  std::string sealedSeedWallet = r->getValue<std::string>("walletId");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE id = ? AND kind = 'bip39-seed'",
                     {"wallet-seed:" + sealedSeedWallet}),
            1);
  std::string fromSeed = addAccount(sealedSeedWallet);
  im->set("walletName", "stored before seeds");
  auto again = importTarget(gw);
  im->set("encryptedBundle",
          bundles::sealedJson(
              bundles::seal(again, reinterpret_cast<const uint8_t*>(plain.data()), plain.size())));
  std::string olderWallet =
      resultOf(gw.rootClient().submit("import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", org, im),
               "importWalletResult")
          ->getValue<std::string>("walletId");
  gw.write([&](Db& db) {
    db.exec("DELETE FROM signet_secrets WHERE id = ?", {"wallet-seed:" + olderWallet});
  });
  EXPECT_EQ(addAccount(olderWallet), fromSeed);
}

}  // namespace
}  // namespace signet::test

namespace signet::test {
namespace {

TEST_P(SigningTest, ListingRenamingAndRemovingAccountsAndTags) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  Client root = gw.rootClient();
  auto created = resultOf(
      root.submit(
          "create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", org,
          walletParams(
              "w", {account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
                    account("CURVE_SECP256K1", "m/44'/60'/0'/0/1", "ADDRESS_FORMAT_ETHEREUM")})),
      "createWalletResult");
  std::string walletId = created->getValue<std::string>("walletId");

  json::Object rename = json::object();
  rename->set("walletId", walletId);
  rename->set("walletName", "renamed");
  resultOf(root.submit("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET", org, rename),
           "updateWalletResult");
  auto wallets = root.query("list_wallets", orgBody(org))->getArray("wallets");
  ASSERT_EQ(wallets->size(), 1u);
  EXPECT_EQ(wallets->getObject(0)->getValue<std::string>("walletName"), "renamed");
  rename->set("walletName", "");
  EXPECT_THROW(root.submit("update_wallet", "ACTIVITY_TYPE_UPDATE_WALLET", org, rename),
               RequestError);

  auto body = orgBody(org);
  body->set("walletId", walletId);
  body->set("includeWalletDetails", true);
  auto accounts = root.query("list_wallet_accounts", body)->getArray("accounts");
  ASSERT_EQ(accounts->size(), 2u);
  for (unsigned i = 0; i < 2; ++i)
    EXPECT_EQ(
        accounts->getObject(i)->getObject("walletDetails")->getValue<std::string>("walletName"),
        "renamed");

  // An unexported account needs deleteWithoutExport; then only the other remains.
  json::Object del = json::object();
  del->set("walletAccountIds",
           json::stringArray({accounts->getObject(0)->getValue<std::string>("walletAccountId")}));
  EXPECT_NE(failureOf(root.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
                                  org, del))
                .find("has not been exported"),
            std::string::npos);
  del->set("deleteWithoutExport", true);
  resultOf(root.submit("delete_wallet_accounts", "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS", org, del),
           "deleteWalletAccountsResult");
  EXPECT_EQ(root.query("list_wallet_accounts", body)->getArray("accounts")->size(), 1u);

  // Private keys listed; a tag renamed and filled through update_private_key_tag.
  auto keys = json::parseObject(
      R"({"privateKeys":[{"privateKeyName":"a","curve":"CURVE_P256","privateKeyTags":[],"addressFormats":["ADDRESS_FORMAT_COMPRESSED"]}]})",
      "t");
  std::string keyId = resultOf(root.submit("create_private_keys",
                                           "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", org, keys),
                               "createPrivateKeysResultV2")
                          ->getArray("privateKeys")
                          ->getObject(0)
                          ->getValue<std::string>("privateKeyId");
  auto listed = root.query("list_private_keys", orgBody(org))->getArray("privateKeys");
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->getObject(0)->getValue<std::string>("curve"), "CURVE_P256");
  std::string tag =
      resultOf(
          root.submit("create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", org,
                      json::parseObject(R"({"privateKeyTagName":"t","privateKeyIds":[]})", "t")),
          "createPrivateKeyTagResult")
          ->getValue<std::string>("privateKeyTagId");
  json::Object update = json::object();
  update->set("privateKeyTagId", tag);
  update->set("newPrivateKeyTagName", "cold");
  update->set("addPrivateKeyIds", json::stringArray({keyId}));
  update->set("removePrivateKeyIds", json::array());
  resultOf(
      root.submit("update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", org, update),
      "updatePrivateKeyTagResult");
  auto tags = root.query("list_private_key_tags", orgBody(org))->getArray("privateKeyTags");
  EXPECT_EQ(tags->getObject(0)->getValue<std::string>("tagName"), "cold");
  EXPECT_EQ(root.query("list_private_keys", orgBody(org))
                ->getArray("privateKeys")
                ->getObject(0)
                ->getArray("privateKeyTags")
                ->getElement<std::string>(0),
            tag);
  // Adding a key that does not exist fails, naming it.
  update->set("addPrivateKeyIds", json::stringArray({"00000000-0000-4000-8000-000000000000"}));
  EXPECT_NE(failureOf(root.submit("update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
                                  org, update))
                .find("private key 00000000-0000-4000-8000-000000000000 not found"),
            std::string::npos);
}

}  // namespace
}  // namespace signet::test
