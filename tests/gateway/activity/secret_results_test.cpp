// Sealed result fields opened again for readers (gateway/activity/secret_results.hpp), on both
// stores: a page of activities reads the cells of all its secrets in one statement, so that
// list_activities costs one read for them however many it lists, not one each.
#include "activity/secret_results.hpp"
#include "activity/secret_parameters.hpp"
#include "signet/crypto.hpp"
#include "store/keyring.hpp"
#include "store/sql_connection.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class SecretResultsTest : public BackendTest {};
SIGNET_BACKEND_SUITE(SecretResultsTest);

// A record whose result holds a bearer token in clear, as the handler made it.
ActivityRecord withToken(const std::string& token) {
  ActivityRecord r;
  r.id = crypto::uuidV4();
  r.result = json::object();
  json::Object result = json::object();
  result->set("verificationToken", token);
  result->set("otpId", "kept as it is");
  r.result->set("verifyOtpResult", result);
  return r;
}

std::string tokenOf(const ActivityRecord& r) {
  return r.result->getObject("verifyOtpResult")->getValue<std::string>("verificationToken");
}

// The keyring over the store, counting what it opens from cells read by the caller's statement,
// and failing any open that reads a secret by itself (a read a secret).
class CountingKeyring : public Keyring {
 public:
  CountingKeyring(Db& db, const crypto::SecretBytes& masterKey) : keyring_(db, masterKey) {}
  void seal(const std::string& id, const std::string& kind,
            const crypto::SecretBytes& plaintext) override {
    keyring_.seal(id, kind, plaintext);
  }
  crypto::SecretBytes open(const std::string& id, const std::string& kind) override {
    ADD_FAILURE() << "secret " << id << " read by a statement of its own";
    return keyring_.open(id, kind);
  }
  crypto::SecretBytes open(const std::string& id, const std::string& kind,
                           const SealedSecret& sealed) override {
    ++opened;
    return keyring_.open(id, kind, sealed);
  }
  void erase(const std::string& id) override { keyring_.erase(id); }
  int opened = 0;

 private:
  DbKeyring keyring_;
};

TEST_P(SecretResultsTest, APageOfActivitiesOpensItsSecretsInOneRead) {
  TestGateway gw(GetParam());
  ActivitySpec spec;
  spec.resultKey = "verifyOtpResult";
  spec.secretResults = {"verificationToken"};
  // Three records stored redacted: the first two with their tokens sealed, the third sealed
  // nothing (as a store written before tokens were sealed, then redacted, would hold).
  const std::vector<ActivityRecord> made = {withToken("token one"), withToken("token two"),
                                            withToken("never sealed")};
  gw.write([&](Db& db) {
    DbKeyring keyring(db, gw.gateway().masterKey());
    activities::sealResults(keyring, spec, made[0]);
    activities::sealResults(keyring, spec, made[1]);
  });
  auto redacted = [&](size_t count) {  // the records as stored, afresh
    std::vector<ActivityRecord> page;
    for (size_t i = 0; i < count; ++i)
      page.push_back(activities::withResultsRedacted(spec, made[i]));
    return page;
  };
  for (const auto& r : redacted(3)) ASSERT_EQ(tokenOf(r), activities::kRedacted);

  auto db = openConnection(gw.gateway().config().database);
  CountingKeyring keyring(*db, gw.gateway().masterKey());
  auto roundTrips = [&](std::vector<ActivityRecord>& page) {
    size_t before = db->roundTrips();
    activities::openResults(*db, keyring, page);
    return db->roundTrips() - before;
  };
  auto warm = redacted(1);
  roundTrips(warm);  // its first use prepares the statement
  const size_t prepared = db->preparedStatements();
  auto page = redacted(3);
  const size_t trips = roundTrips(page);
  if (db->isPostgres()) {
    EXPECT_EQ(trips, 1u);
  }
  EXPECT_EQ(keyring.opened, 3);  // one for warm, two here
  EXPECT_EQ(tokenOf(page[0]), "token one");
  EXPECT_EQ(tokenOf(page[1]), "token two");
  EXPECT_EQ(tokenOf(page[2]), activities::kRedacted);
  EXPECT_EQ(page[0].result->getObject("verifyOtpResult")->getValue<std::string>("otpId"),
            "kept as it is");
  // The statement is the same text for any number of secrets: one prepared, not one a size.
  EXPECT_EQ(db->preparedStatements(), prepared);

  // Nothing redacted: no read at all.
  auto opened = redacted(2);
  roundTrips(opened);
  EXPECT_EQ(roundTrips(opened), 0u);
  EXPECT_EQ(tokenOf(opened[0]), "token one");

  // A page of 501: still one read.
  std::vector<ActivityRecord> many;
  gw.write([&](Db& db) {
    DbKeyring sealing(db, gw.gateway().masterKey());
    for (int i = 0; i < 501; ++i) {
      auto r = withToken("token " + std::to_string(i));
      activities::sealResults(sealing, spec, r);
      many.push_back(activities::withResultsRedacted(spec, r));
    }
  });
  const size_t manyTrips = roundTrips(many);
  if (db->isPostgres()) {
    EXPECT_EQ(manyTrips, 1u);
  }
  for (int i = 0; i < 501; ++i) EXPECT_EQ(tokenOf(many[i]), "token " + std::to_string(i)) << i;
  EXPECT_EQ(db->preparedStatements(), prepared);

  // A secret of another kind where a result's should be is refused, as opening it by id was.
  ActivityRecord forged = withToken("forged");
  gw.write([&](Db& db) {
    DbKeyring(db, gw.gateway().masterKey())
        .seal("activity-result:" + forged.id + ":verificationToken", "api-key",
              crypto::SecretBytes(Bytes{'x'}));
  });
  std::vector<ActivityRecord> refused = {activities::withResultsRedacted(spec, forged)};
  EXPECT_THROW(activities::openResults(*db, keyring, refused), Error);
}

}  // namespace
}  // namespace signet::test
