// The voter of each vote, referenced by digest instead of copied into it
// (gateway/activity/vote_users.hpp), through a real gateway on both stores.
#include "activity/activity_store.hpp"
#include "support/test_gateway.hpp"
#include "tenancy/directory.hpp"

namespace signet::test {
namespace {

class VoteUsersTest : public BackendTest {};
SIGNET_BACKEND_SUITE(VoteUsersTest);

// A memo activity (the test plugin's), submitted by `client` in `org`.
json::Object submitMemo(const Client& client, const std::string& org, const std::string& text) {
  json::Object p = json::object();
  p->set("text", text);
  return client.submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO", org, p);
}

json::Object activityQuery(const std::string& org, const std::string& id) {
  json::Object q = orgBody(org);
  q->set("activityId", id);
  return q;
}

std::string storedVotes(TestGateway& gw, const std::string& id) {
  std::string votes;
  gw.write([&](Db& db) {
    votes = db.queryOne("SELECT votes FROM activities WHERE id = ?", {id})->str("votes");
  });
  return votes;
}

TEST_P(VoteUsersTest, AVoteKeepsTheUserAsTheyVotedStoredOnceForEveryVoteOfThatUser) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  auto client = gw.rootClient();
  auto first = submitMemo(client, org, "one");
  auto second = submitMemo(client, org, "two");
  const std::string firstId = first->getValue<std::string>("id");
  // The row holds the user's digest, not the user; one copy serves both votes.
  EXPECT_EQ(storedVotes(gw, firstId).find("\"user\""), std::string::npos);
  EXPECT_NE(storedVotes(gw, firstId).find("\"userDigest\""), std::string::npos);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users WHERE organization_id = ?", {org}), 1);

  // The answer is the submission's, the user inside, from get_activity and list_activities.
  auto read = client.query("get_activity", activityQuery(org, firstId))->getObject("activity");
  EXPECT_EQ(json::stringify(read->getArray("votes")), json::stringify(first->getArray("votes")));
  EXPECT_EQ(
      read->getArray("votes")->getObject(0)->getObject("user")->getValue<std::string>("userId"),
      gw.root().userId);
  auto listed = client.query("list_activities", orgBody(org))->getArray("activities");
  ASSERT_EQ(listed->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    auto a = listed->getObject(static_cast<unsigned>(i));
    auto& submitted = a->getValue<std::string>("id") == firstId ? first : second;
    EXPECT_EQ(json::stringify(a->getArray("votes")), json::stringify(submitted->getArray("votes")));
  }

  // Renamed, the user votes as who they are now; the earlier vote still shows who they were.
  json::Object name = json::object();
  name->set("userId", gw.root().userId);
  name->set("userName", "renamed root");
  resultOf(client.submit("update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", org, name),
           "updateUserNameResult");
  auto third = submitMemo(client, org, "three");
  EXPECT_EQ(
      third->getArray("votes")->getObject(0)->getObject("user")->getValue<std::string>("userName"),
      "renamed root");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users WHERE organization_id = ?", {org}), 2);
  read = client.query("get_activity", activityQuery(org, firstId))->getObject("activity");
  EXPECT_EQ(json::stringify(read->getArray("votes")), json::stringify(first->getArray("votes")));
}

TEST_P(VoteUsersTest, AnAlteredOrMissingUserIsRefusedNotShown) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  auto client = gw.rootClient();
  const std::string id = submitMemo(client, org, "x")->getValue<std::string>("id");
  gw.write([&](Db& db) {
    db.exec("UPDATE vote_users SET user_json = REPLACE(user_json, ?, ?)",
            {gw.root().userId, std::string("someone-else")});
  });
  EXPECT_THROW(client.query("get_activity", activityQuery(org, id)), RequestError);
  gw.write([&](Db& db) { db.exec("DELETE FROM vote_users"); });
  EXPECT_THROW(client.query("get_activity", activityQuery(org, id)), RequestError);
}

// A copy is written only with the row that names it: an identical request's row stored first, or
// a row gone since (its organization deleted while the activity waited), leaves none.
TEST_P(VoteUsersTest, ARowNotWrittenLeavesNoCopy) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  auto submitted = submitMemo(gw.rootClient(), org, "kept");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users"), 1);
  // The stored activity under a new id, its voter changed, so that writing its votes would need
  // a new copy.
  auto votedAs = [&](Db& db, const std::string& userName) {
    auto record =
        activities::findByFingerprint(db, submitted->getValue<std::string>("fingerprint"));
    EXPECT_TRUE(record);
    json::Object user = json::object();
    user->set("userId", gw.root().userId);
    user->set("userName", userName);
    record->votes->getObject(0)->set("user", user);
    record->id = crypto::uuidV7(record->createdAtMs);
    return *record;
  };
  gw.write([&](Db& db) {
    ActivityRecord never = votedAs(db, "never stored");
    EXPECT_FALSE(activities::insertUnlessStored(db, never, activities::rowTexts(never)));
    // Sent without waiting for its answer, the copy follows before anyone knows whether the
    // row went in: the statement itself finds it did not.
    EXPECT_TRUE(
        activities::sendUnlessStored(db, never, activities::rowTexts(never))->rows().empty());
    activities::update(db, votedAs(db, "never stored"));
  });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users"), 1);
  // A row that does go in brings its new copy, and the answer says it went in.
  gw.write([&](Db& db) {
    ActivityRecord fresh = votedAs(db, "stored with its row");
    fresh.fingerprint = "sha256:" + std::string(64, 'e');
    EXPECT_EQ(activities::sendUnlessStored(db, fresh, activities::rowTexts(fresh))->rows().size(),
              1u);
  });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users"), 2);
}

// On PostgreSQL two batches writing the same new copy at once may both store it (the table has
// no unique key, so that neither waits): a copy held twice reads as one.
TEST_P(VoteUsersTest, ACopyHeldTwiceReadsAsOne) {
  TestGateway gw(GetParam());
  if (GetParam() != Backend::kPostgres) GTEST_SKIP() << "SQLite's one writer never races";
  const std::string org = gw.root().organizationId;
  auto client = gw.rootClient();
  auto submitted = submitMemo(client, org, "twice");
  gw.write([&](Db& db) { db.exec("INSERT INTO vote_users SELECT * FROM vote_users"); });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users"), 2);
  auto read =
      client.query("get_activity", activityQuery(org, submitted->getValue<std::string>("id")))
          ->getObject("activity");
  EXPECT_EQ(json::stringify(read->getArray("votes")),
            json::stringify(submitted->getArray("votes")));
}

TEST_P(VoteUsersTest, AVoteStoredWithItsUserInsideReadsAsItIs) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  auto client = gw.rootClient();
  auto submitted = submitMemo(client, org, "old");
  const std::string id = submitted->getValue<std::string>("id");
  // As a release before core migration 24 stored it: the user copied into the vote.
  gw.write([&](Db& db) {
    db.exec("UPDATE activities SET votes = ? WHERE id = ?",
            {json::stringify(submitted->getArray("votes")), id});
    db.exec("DELETE FROM vote_users");
  });
  auto read = client.query("get_activity", activityQuery(org, id))->getObject("activity");
  EXPECT_EQ(json::stringify(read->getArray("votes")),
            json::stringify(submitted->getArray("votes")));
}

TEST_P(VoteUsersTest, DeletingAnOrganizationDeletesItsVotersCopies) {
  TestGateway gw(GetParam());
  // Named, not a structured binding: clang 14 (the sanitizer build) refuses to capture one.
  auto created = gw.createOrganization("voters");
  const std::string subId = created.first.organizationId;
  auto client = gw.clientWith(created.second);
  submitMemo(client, subId, "gone");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users WHERE organization_id = ?", {subId}), 1);
  gw.write([&](Db& db) { directory::deleteOrganization(db, subId); });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM vote_users WHERE organization_id = ?", {subId}), 0);
}

}  // namespace
}  // namespace signet::test
