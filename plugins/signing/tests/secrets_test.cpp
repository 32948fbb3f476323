// Secrets over HTTP on both stores (secrets.hpp): targets announced by init_import_secrets,
// secrets imported to them, listed, and exported to a key of the caller's, which opens them. The
// value is never in the store in clear; a spent target takes nothing more; bad input is refused
// naming the field and stores nothing; another organization sees none of it (an export of
// another's secret fails as not found). The official
// @turnkey/crypto helpers drive the same round trip in tests/conformance/signing.test.mjs.
#include "signet/bundles.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

constexpr const char* kSuite = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1";

class SecretsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SecretsTest);

struct Target {
  std::string publicHex;
  Bytes publicKey;
};

// The targets of an init_import_secrets, each checked against the gateway's signature.
std::vector<Target> initTargets(TestGateway& gw, int n) {
  json::Object p = json::object();
  p->set("encryptionSuite", kSuite);
  p->set("numSecrets", n);
  auto result =
      resultOf(gw.rootClient().submit("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
                                      gw.root().organizationId, p),
               "initImportSecretsResult");
  std::vector<Target> targets;
  auto messages = result->getArray("enclaveTargetMessages");
  for (unsigned i = 0; i < messages->size(); ++i) {
    auto data =
        bundles::openEnvelope(messages->getElement<std::string>(i), gw.gateway().signerPublicKey());
    EXPECT_TRUE(data) << "a target message the gateway's key does not verify";
    auto signedData = json::parseObject(*data, "signed data");
    EXPECT_EQ(signedData->getValue<std::string>("organizationId"), gw.root().organizationId);
    std::string hex = signedData->getValue<std::string>("targetPublic");
    targets.push_back({hex, *fromHex(hex)});
  }
  return targets;
}

json::Object secretParams(const Target& target, const std::string& value,
                          const std::string& name = "") {
  crypto::SecretBytes plain(Bytes(value.begin(), value.end()));
  auto sealed = bundles::seal(target.publicKey, plain.data(), plain.size());
  json::Object s = json::object();
  if (!name.empty()) s->set("name", name);
  s->set("secretPayload", bundles::sealedJson(sealed, {}));
  s->set("targetPublicKey", target.publicHex);
  s->set("encryptionSuite", kSuite);
  json::Array properties = json::array();
  json::Object kv = json::object();
  kv->set("key", "env");
  kv->set("value", "prod");
  properties->add(kv);
  s->set("staticProperties", properties);
  return s;
}

json::Object secretsBody(const std::vector<json::Object>& secrets) {
  json::Object p = json::object();
  json::Array list = json::array();
  for (const auto& s : secrets) list->add(s);
  p->set("secrets", list);
  return p;
}

HttpResponse post(TestGateway& gw, const std::string& op, const std::string& type,
                  const json::Object& params) {
  return gw.rootClient().post("/public/v1/submit/" + op,
                              activityBody(type, gw.root().organizationId, params));
}

json::Array listed(TestGateway& gw, const std::string& pagination = "") {
  json::Object body = orgBody(gw.root().organizationId);
  if (!pagination.empty())
    body->set("paginationOptions", json::parseObject(pagination, "paginationOptions"));
  return gw.rootClient().query("list_secrets", body)->getArray("secrets");
}

TEST_P(SecretsTest, ImportedSecretsListAndExportToTheCallersKeyAndAreNeverStoredInClear) {
  TestGateway gw(GetParam(), {"signing"});
  auto targets = initTargets(gw, 2);
  ASSERT_EQ(targets.size(), 2u);
  const std::string first = "sk_live_0123456789-first-secret";
  const std::string second = "second secret, with spaces";
  auto ids =
      resultOf(gw.rootClient().submit("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS",
                                      gw.root().organizationId,
                                      secretsBody({secretParams(targets[0], first, "api-token"),
                                                   secretParams(targets[1], second)})),
               "importSecretsResult")
          ->getArray("secretIds");
  ASSERT_EQ(ids->size(), 2u);

  auto secrets = listed(gw);
  ASSERT_EQ(secrets->size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    auto s = secrets->getObject(i);
    EXPECT_EQ(s->getArray("staticProperties")->getObject(0)->getValue<std::string>("value"),
              "prod");
    EXPECT_FALSE(s->getValue<std::string>("createdAtUnixMs").empty());
  }
  // Newest first, a page at a time.
  auto page = listed(gw, R"({"limit":"1"})");
  ASSERT_EQ(page->size(), 1u);
  auto rest = listed(gw, R"({"limit":"1","after":")" +
                             page->getObject(0)->getValue<std::string>("secretId") + R"("})");
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_NE(rest->getObject(0)->getValue<std::string>("secretId"),
            page->getObject(0)->getValue<std::string>("secretId"));

  // Exported to a key of the caller's: it opens to what was imported.
  auto receiver = crypto::generatePrivateKey(crypto::Curve::kP256);
  std::string receiverHex = toHex(crypto::uncompressPublicKey(
      crypto::Curve::kP256, crypto::publicKeyFromPrivate(crypto::Curve::kP256, receiver)));
  json::Array exportList = json::array();
  for (unsigned i = 0; i < 2; ++i) {
    json::Object e = json::object();
    e->set("secretId", ids->getElement<std::string>(i));
    e->set("targetPublicKey", receiverHex);
    e->set("encryptionSuite", kSuite);
    exportList->add(e);
  }
  json::Object exportParams = json::object();
  exportParams->set("secrets", exportList);
  auto payloads = resultOf(gw.rootClient().submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS",
                                                  gw.root().organizationId, exportParams),
                           "exportSecretsResult")
                      ->getArray("secretPayloads");
  ASSERT_EQ(payloads->size(), 2u);
  const std::string expected[] = {first, second};
  for (unsigned i = 0; i < 2; ++i) {
    auto data =
        bundles::openEnvelope(payloads->getElement<std::string>(i), gw.gateway().signerPublicKey());
    ASSERT_TRUE(data);
    auto sealed = bundles::parseSealedJson(*data);
    ASSERT_TRUE(sealed);
    auto plain = bundles::open(receiver, *sealed);
    ASSERT_TRUE(plain);
    EXPECT_EQ(std::string(plain->bytes().begin(), plain->bytes().end()), expected[i]);
  }

  // Not in clear anywhere in the store: the tables, the keyring, the activities.
  if (GetParam() == Backend::kSqlite) {
    for (const char* file : TestGateway::kSqliteFiles) {
      std::string bytes = gw.sqliteFile(file);
      EXPECT_FALSE(bytes.empty()) << file;
      EXPECT_EQ(bytes.find(first), std::string::npos) << file;
      EXPECT_EQ(bytes.find(second), std::string::npos) << file;
    }
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_secrets WHERE static_properties LIKE ?",
                     {"%" + first + "%"}),
            0);

  // Deleted all or none: an id not in the organization refuses the request; then both go, with
  // their sealed values.
  const int64_t sealedBefore =
      gw.count("SELECT COUNT(*) FROM signet_secrets WHERE kind = 'secret'");
  EXPECT_EQ(sealedBefore, 2);
  json::Object del = json::object();
  del->set("secretIds", json::stringArray({ids->getElement<std::string>(0), crypto::uuidV4()}));
  auto r = post(gw, "delete_secrets", "ACTIVITY_TYPE_DELETE_SECRETS", del);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("parameters.secretIds[1]"), std::string::npos) << r.body;
  EXPECT_EQ(listed(gw)->size(), 2u);
  del->set("secretIds",
           json::stringArray({ids->getElement<std::string>(0), ids->getElement<std::string>(1)}));
  EXPECT_EQ(resultOf(gw.rootClient().submit("delete_secrets", "ACTIVITY_TYPE_DELETE_SECRETS",
                                            gw.root().organizationId, del),
                     "deleteSecretsResult")
                ->getArray("secretIds")
                ->size(),
            2u);
  EXPECT_EQ(listed(gw)->size(), 0u);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signet_secrets WHERE kind = 'secret'"), 0);
}

TEST_P(SecretsTest, BadInputIsRefusedNamingTheFieldAndStoresNothing) {
  TestGateway gw(GetParam(), {"signing"});
  auto targets = initTargets(gw, 3);
  auto other = initTargets(gw, 1);
  auto refused = [&](const std::string& op, const std::string& type, const json::Object& params,
                     const std::string& field) {
    auto r = post(gw, op, type, params);
    EXPECT_EQ(r.status, 400) << field << ": " << r.body;
    EXPECT_NE(r.body.find(field), std::string::npos) << r.body;
  };
  json::Object init = json::object();
  init->set("encryptionSuite", kSuite);
  for (int n : {0, 51}) {
    init->set("numSecrets", n);
    refused("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", init, "numSecrets");
  }
  init->set("numSecrets", 1);
  init->set("encryptionSuite", "TRANSPORT_ENCRYPTION_SUITE_NONE");
  refused("init_import_secrets", "ACTIVITY_TYPE_INIT_IMPORT_SECRETS", init, "encryptionSuite");

  // A good secret, then one sealed to another target than it names: the request is refused
  // whole, and the good one's target is not spent.
  json::Object wrongKey = secretParams(other[0], "x");
  wrongKey->set("targetPublicKey", targets[1].publicHex);
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS",
          secretsBody({secretParams(targets[0], "good", "first"), wrongKey}),
          "parameters.secrets[1].secretPayload");
  json::Object unknownTarget = secretParams(targets[1], "y");
  unknownTarget->set(
      "targetPublicKey",
      toHex(crypto::uncompressPublicKey(
          crypto::Curve::kP256,
          crypto::publicKeyFromPrivate(crypto::Curve::kP256,
                                       crypto::generatePrivateKey(crypto::Curve::kP256)))));
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", secretsBody({unknownTarget}),
          "parameters.secrets[0].targetPublicKey");
  json::Object repeated = secretParams(targets[1], "z", "dup");
  json::Object repeatedToo = secretParams(targets[2], "z2", "dup");
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", secretsBody({repeated, repeatedToo}),
          "parameters.secrets[1].name");
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", secretsBody({}), "parameters.secrets");
  EXPECT_EQ(listed(gw)->size(), 0u);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM signing_secrets"), 0);

  // The refused requests spent nothing: the first target still takes its secret, once.
  auto good = secretParams(targets[0], "good", "first");
  EXPECT_EQ(post(gw, "import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS", secretsBody({good})).status,
            200);
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS",
          secretsBody({secretParams(targets[0], "again", "second")}),
          "parameters.secrets[0].targetPublicKey");
  refused("import_secrets", "ACTIVITY_TYPE_IMPORT_SECRETS",
          secretsBody({secretParams(targets[1], "taken name", "first")}),
          "parameters.secrets[0].name");
  EXPECT_EQ(listed(gw)->size(), 1u);

  // Export: an unknown id is not found, a bad target key is named; another organization sees
  // none of this one's secrets.
  const std::string id = listed(gw)->getObject(0)->getValue<std::string>("secretId");
  json::Object e = json::object();
  e->set("secretId", crypto::uuidV4());
  e->set("targetPublicKey", targets[0].publicHex);
  e->set("encryptionSuite", kSuite);
  EXPECT_NE(failureOf(gw.rootClient().submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS",
                                             gw.root().organizationId, secretsBody({e})))
                .find("not found in organization"),
            std::string::npos);
  e->set("secretId", id);
  e->set("targetPublicKey", "04abcd");
  refused("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS", secretsBody({e}),
          "parameters.secrets[0].targetPublicKey");
  auto [theirs, theirStamper] = gw.createOrganization("other");
  EXPECT_EQ(gw.clientWith(theirStamper)
                .query("list_secrets", orgBody(theirs.organizationId))
                ->getArray("secrets")
                ->size(),
            0u);
  e->set("targetPublicKey", targets[0].publicHex);
  EXPECT_NE(failureOf(gw.clientWith(theirStamper)
                          .submit("export_secrets", "ACTIVITY_TYPE_EXPORT_SECRETS",
                                  theirs.organizationId, secretsBody({e})))
                .find("not found in organization " + theirs.organizationId),
            std::string::npos);
}

}  // namespace
}  // namespace signet::test
