// The store on both backends: migrations, transactions, the keyring and the master key.
#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "activity/activity_store.hpp"
#include "mfa/mfa_store.hpp"
#include "store/core_schema.hpp"
#include "store/given_texts.hpp"
#include "store/keyring.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class StoreTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFailure()) return;
    dir_ = std::filesystem::temp_directory_path() / ("signet-store-" + crypto::uuidV4());
    std::filesystem::create_directories(dir_);
    scratch_ = std::make_unique<ScratchDatabase>(GetParam(), dir_);
    db_ = std::make_unique<Database>(scratch_->config());
  }
  void TearDown() override {
    db_.reset();
    scratch_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // One page of list_activities of `org`, newest first, held to `budget` characters.
  std::vector<ActivityRecord> listPage(const std::string& org, size_t budget,
                                       const std::optional<std::string>& after) {
    ActivityFilter filter;
    filter.page.limit = 100;
    filter.page.after = after;
    filter.maxCharacters = budget;
    std::vector<ActivityRecord> out;
    db_->read([&](Db& db) { out = activities::list(db, org, filter); });
    return out;
  }
  std::filesystem::path dir_;
  std::unique_ptr<ScratchDatabase> scratch_;
  std::unique_ptr<Database> db_;
};
SIGNET_BACKEND_SUITE(StoreTest);

std::vector<Migration> widgetMigrations(int upTo) {
  std::vector<Migration> all = {
      {1, "widgets", {"CREATE TABLE widgets (id TEXT PRIMARY KEY, n BIGINT NOT NULL)"}},
      {2, "widget names", {"ALTER TABLE widgets ADD COLUMN name TEXT"}},
  };
  all.resize(static_cast<size_t>(upTo));
  return all;
}

// A completed memo activity of `org` with no votes, made at `atMs`.
ActivityRecord completedMemo(const std::string& org, const std::string& text, int64_t atMs) {
  ActivityRecord a;
  a.id = crypto::uuidV4();
  a.organizationId = org;
  a.type = "ACTIVITY_TYPE_SIGNET_CREATE_MEMO";
  a.status = "ACTIVITY_STATUS_COMPLETED";
  a.fingerprint = "sha256:" + a.id;
  a.intent = json::object();
  a.intent->set("text", text);
  a.votes = json::array();
  a.createdAtMs = a.updatedAtMs = atMs;
  return a;
}

// A page of activities is bounded in size as well as in count: it ends early, with at least
// one activity, and the cursor continues where it ended.
TEST_P(StoreTest, AListPageEndsEarlyPastItsSizeBudgetAndTheCursorContinues) {
  db_->migrate("core", coreMigrations());
  const std::string org = crypto::uuidV4();
  std::vector<std::string> newestFirst;
  db_->transaction([&](Db& db) {
    for (int i = 0; i < 10; ++i) {
      // about 320 characters stored each
      ActivityRecord a = completedMemo(org, std::string(300, 'x'), 1000 + i);
      activities::insert(db, a);
      newestFirst.insert(newestFirst.begin(), a.id);
    }
  });
  auto page = [&](size_t budget, std::optional<std::string> after) {
    std::vector<std::string> ids;
    for (const auto& a : listPage(org, budget, after)) ids.push_back(a.id);
    return ids;
  };
  auto first = page(1000, std::nullopt);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first, std::vector<std::string>(newestFirst.begin(), newestFirst.begin() + 3));
  auto second = page(1000, first.back());
  EXPECT_EQ(second, std::vector<std::string>(newestFirst.begin() + 3, newestFirst.begin() + 6));
  // A budget smaller than one activity still returns one; a large one returns them all.
  EXPECT_EQ(page(10, std::nullopt).size(), 1u);
  EXPECT_EQ(page(1 << 20, std::nullopt), newestFirst);
}

// The voters' copies that a page's votes are read with count against its budget too: a row
// holds only each voter's digest, and the answer holds the voter.
TEST_P(StoreTest, AListPageCountsTheVotersItsVotesAreAnsweredWith) {
  db_->migrate("core", coreMigrations());
  const std::string org = crypto::uuidV4();
  std::vector<std::string> newestFirst;
  db_->transaction([&](Db& db) {
    for (int i = 0; i < 4; ++i) {
      ActivityRecord a = completedMemo(org, "short", 1000 + i);
      json::Object user = json::object();
      user->set("userId", "voter-" + std::to_string(i));
      user->set("userName", std::string(600, 'v'));  // about 640 characters of copy a vote
      json::Object vote = json::object();
      vote->set("id", crypto::uuidV4());
      vote->set("user", user);
      a.votes->add(vote);
      activities::insert(db, a);
      newestFirst.insert(newestFirst.begin(), a.id);
    }
  });
  auto page = [&](size_t budget, std::optional<std::string> after) {
    std::vector<std::string> ids;
    for (const auto& a : listPage(org, budget, after)) {
      ids.push_back(a.id);
      EXPECT_EQ(a.votes->getObject(0)->getObject("user")->getValue<std::string>("userName"),
                std::string(600, 'v'));
    }
    return ids;
  };
  // A budget that holds the four rows as stored, and the first two with their voters.
  int64_t stored = 0, copy = 0, budget = 0;
  db_->read([&](Db& db) {
    stored =
        db.queryOne("SELECT SUM(LENGTH(intent) + LENGTH(votes)) AS n FROM activities")->i64("n");
    copy = db.queryOne("SELECT MAX(LENGTH(user_json)) AS n FROM vote_users")->i64("n");
    for (int i = 0; i < 2; ++i)
      budget += db.queryOne(
                      "SELECT LENGTH(intent) + LENGTH(votes) AS n FROM activities WHERE "
                      "id = ?",
                      {newestFirst[i]})
                    ->i64("n") +
                copy;
  });
  ASSERT_LT(stored, budget);
  auto first = page(static_cast<size_t>(budget), std::nullopt);
  EXPECT_EQ(first, std::vector<std::string>(newestFirst.begin(), newestFirst.begin() + 2));
  auto second = page(static_cast<size_t>(budget), first.back());
  EXPECT_EQ(second, std::vector<std::string>(newestFirst.begin() + 2, newestFirst.end()));
  // A budget smaller than one activity and its voter still returns one.
  EXPECT_EQ(page(300, std::nullopt).size(), 1u);
}

TEST_P(StoreTest, MigrationsApplyOnceAndInOrder) {
  db_->migrate("widgets", widgetMigrations(1));
  db_->migrate("widgets", widgetMigrations(1));  // again: nothing to do
  EXPECT_EQ(db_->appliedMigrations("widgets"), std::vector<int>{1});
  db_->migrate("widgets", widgetMigrations(2));
  EXPECT_EQ(db_->appliedMigrations("widgets"), (std::vector<int>{1, 2}));
  db_->transaction([](Db& db) {
    db.exec("INSERT INTO widgets (id, n, name) VALUES (?, ?, ?)",
            {std::string("a"), int64_t{1} << 40, std::string("it's")});
  });
  db_->read([](Db& db) {
    auto row = db.queryOne("SELECT n, name FROM widgets WHERE id = ?", {std::string("a")});
    ASSERT_TRUE(row);
    EXPECT_EQ(row->i64("n"), int64_t{1} << 40);
    EXPECT_EQ(row->str("name"), "it's");
  });
  std::vector<Migration> unordered = {{2, "b", {}}, {1, "a", {}}};
  EXPECT_THROW(db_->migrate("other", unordered), Error);
}

namespace {
// An activity row as the first layout has it, for the migrations to move.
void insertEarlyActivity(Db& db, const std::string& org, const std::string& id) {
  db.exec(
      "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, votes, "
      "created_at_ms, updated_at_ms) VALUES (?, ?, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', "
      "'ACTIVITY_STATUS_COMPLETED', ?, '{}', '[]', 1, 1)",
      {id, org, "sha256:" + id});
}

void insertEvaluation(Db& db, const std::string& org, const std::string& activity,
                      const std::string& id, const std::string& vote, const std::string& text,
                      int64_t at) {
  db.exec(
      "INSERT INTO policy_evaluations (id, activity_id, organization_id, vote_id, evaluations, "
      "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
      {id, activity, org, vote, text, at});
}

void insertPresentation(Db& db, const std::string& activity, const std::string& vote,
                        const std::string& user, const std::string& type, const std::string& key,
                        int64_t at) {
  db.exec(
      "INSERT INTO mfa_presentations (vote_id, activity_id, user_id, method_type, method_id, "
      "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
      {vote, activity, user, type, key, at});
}

std::vector<Migration> migrationsBefore(int version) {
  std::vector<Migration> before;
  for (const auto& m : coreMigrations())
    if (m.version < version) before.push_back(m);
  return before;
}
}  // namespace

// Evaluations and presentations written under the first layout survive migration 17 (keyed by
// activity first: one b-tree each on SQLite, one index on PostgreSQL) and migration 23 (moved
// into the activity's row), read back whole and in the order they were made.
TEST_P(StoreTest, EvaluationsAndPresentationsMoveIntoTheirActivity) {
  auto all = coreMigrations();
  auto before = migrationsBefore(17);
  ASSERT_EQ(all[before.size()].version, 17);
  db_->migrate("core", before);
  const std::string org = crypto::uuidV4(), activity = crypto::uuidV4(), other = crypto::uuidV4();
  db_->transaction([&](Db& db) {
    insertEarlyActivity(db, org, activity);
    insertEarlyActivity(db, org, other);
    // Out of order, with text as the first layout stored it (spaces included).
    insertEvaluation(db, org, activity, "e2", "v2", "[2]", 20);
    insertEvaluation(db, org, activity, "e1", "v1", "[{\"policyId\": \"p\", \"outcome\": 1}]", 10);
    insertEvaluation(db, org, other, "e3", "v3", "[3]", 30);
    insertPresentation(db, activity, "v2", "u2", "AUTHENTICATION_TYPE_API_KEY", "k2", 20);
    insertPresentation(db, activity, "v1", "u1", "AUTHENTICATION_TYPE_PASSKEY", "k1", 10);
  });
  db_->migrate("core", all);
  EXPECT_EQ(db_->appliedMigrations("core").back(), all.back().version);
  db_->read([&](Db& db) {
    auto evaluations = activities::evaluationsOf(db, org, activity);
    ASSERT_EQ(evaluations.size(), 2u);
    EXPECT_EQ(evaluations[0].id, "e1");
    EXPECT_EQ(evaluations[0].voteId, "v1");
    EXPECT_EQ(json::stringify(evaluations[0].evaluations), "[{\"outcome\":1,\"policyId\":\"p\"}]");
    EXPECT_EQ(evaluations[0].createdAtMs, 10);
    EXPECT_EQ(evaluations[1].id, "e2");
    EXPECT_EQ(json::stringify(evaluations[1].evaluations), "[2]");
    EXPECT_EQ(activities::evaluationsOf(db, org, other).size(), 1u);
    auto record = activities::findByFingerprint(db, "sha256:" + activity);
    ASSERT_TRUE(record);
    const auto& presentations = record->presentations;
    ASSERT_EQ(presentations.size(), 2u);
    EXPECT_EQ(presentations[0].voteId, "v1");
    EXPECT_EQ(presentations[0].userId, "u1");
    EXPECT_EQ(presentations[0].method.type, "AUTHENTICATION_TYPE_PASSKEY");
    EXPECT_EQ(presentations[0].method.id, "k1");
    EXPECT_EQ(presentations[1].voteId, "v2");
    EXPECT_EQ(record->evaluations.size(), 2u);
    // Read from the row: an activity with none holds an empty list, not NULL.
    EXPECT_EQ(db.queryOne("SELECT COUNT(*) AS n FROM activities WHERE evaluations IS NULL OR "
                          "presentations IS NULL")
                  ->i64("n"),
              0);
    EXPECT_EQ(db.queryOne("SELECT presentations FROM activities WHERE id = ?", {other})
                  ->str("presentations"),
              "[]");
    if (GetParam() == Backend::kSqlite) {
      EXPECT_EQ(db.queryOne("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'index' AND "
                            "tbl_name IN ('policy_evaluations', 'mfa_presentations')")
                    ->i64("n"),
                0);
      for (const char* table : {"policy_evaluations", "mfa_presentations"})
        EXPECT_NE(db.queryOne("SELECT sql FROM sqlite_master WHERE name = ?", {std::string(table)})
                      ->str("sql")
                      .find("WITHOUT ROWID"),
                  std::string::npos)
            << table;
    } else {
      EXPECT_EQ(db.queryOne("SELECT COUNT(*) AS n FROM pg_indexes WHERE tablename IN "
                            "('policy_evaluations', 'mfa_presentations')")
                    ->i64("n"),
                2);
    }
  });
}

// During a rolling upgrade on PostgreSQL, gateways of the earlier release go on writing each
// vote's evaluation and presentation to their tables: for a row they create after the migration
// (its own lists NULL), and for a row that has its lists. Both are read, and a vote that
// updates the row carries them into it.
TEST_P(StoreTest, AnActivityOfTheEarlierReleaseReadsItsEvaluationsFromItsTables) {
  db_->migrate("core", coreMigrations());
  const std::string org = crypto::uuidV4(), activity = crypto::uuidV4();
  db_->transaction([&](Db& db) {
    insertEarlyActivity(db, org, activity);  // as that release writes it: no new columns
    insertEvaluation(db, org, activity, "e1", "v1", "[1]", 10);
    insertPresentation(db, activity, "v1", "u1", "AUTHENTICATION_TYPE_API_KEY", "k1", 10);
  });
  db_->transaction([&](Db& db) {
    auto record = activities::findByFingerprint(db, "sha256:" + activity);
    ASSERT_TRUE(record);
    ASSERT_EQ(record->presentations.size(), 1u);
    EXPECT_EQ(record->presentations[0].method.id, "k1");
    ASSERT_EQ(activities::evaluationsOf(db, org, activity).size(), 1u);
    activities::recordEvaluation(*record, "v2", json::array(), 20);
    activities::recordPresentation(*record, {"v2", "u2", {"AUTHENTICATION_TYPE_PASSKEY", "k2"}});
    activities::update(db, *record);
  });
  db_->read([&](Db& db) {
    auto evaluations = activities::evaluationsOf(db, org, activity);
    ASSERT_EQ(evaluations.size(), 2u);
    EXPECT_EQ(evaluations[0].id, "e1");
    EXPECT_EQ(evaluations[1].voteId, "v2");
    EXPECT_FALSE(db.queryOne("SELECT evaluations FROM activities WHERE id = ?", {activity})
                     ->isNull("evaluations"));
    auto record = activities::findByFingerprint(db, "sha256:" + activity);
    ASSERT_EQ(record->presentations.size(), 2u);
    EXPECT_EQ(record->presentations[1].method.id, "k2");
  });
  // A vote of the earlier release on the row that now has its lists, one made before the last
  // recorded (its clock behind), and the copies already in the row: each read once, in time order.
  db_->transaction([&](Db& db) {
    insertEvaluation(db, org, activity, "e3", "v3", "[3]", 15);
    insertPresentation(db, activity, "v3", "u3", "AUTHENTICATION_TYPE_API_KEY", "k3", 15);
  });
  db_->read([&](Db& db) {
    auto evaluations = activities::evaluationsOf(db, org, activity);
    ASSERT_EQ(evaluations.size(), 3u);
    EXPECT_EQ(evaluations[0].id, "e1");
    EXPECT_EQ(evaluations[1].id, "e3");
    EXPECT_EQ(evaluations[2].voteId, "v2");
    auto record = activities::findByFingerprint(db, "sha256:" + activity);
    ASSERT_EQ(record->evaluations.size(), 3u);
    ASSERT_EQ(record->presentations.size(), 3u);
    EXPECT_EQ(record->presentations[2].method.id, "k3");
  });
}

// Recording a vote's evaluation or presentation twice (a transaction run again) keeps one.
TEST(ActivityRecordTest, AVotesEvaluationAndPresentationAreRecordedOnce) {
  ActivityRecord record;
  activities::recordEvaluation(record, "v1", json::array(), 1);
  activities::recordEvaluation(record, "v1", json::array(), 2);
  activities::recordEvaluation(record, "v2", json::array(), 3);
  ASSERT_EQ(record.evaluations.size(), 2u);
  EXPECT_EQ(record.evaluations[0].createdAtMs, 2);
  activities::recordPresentation(record, {"v1", "u", {"AUTHENTICATION_TYPE_API_KEY", "a"}});
  activities::recordPresentation(record, {"v1", "u", {"AUTHENTICATION_TYPE_API_KEY", "b"}});
  ASSERT_EQ(record.presentations.size(), 1u);
  EXPECT_EQ(record.presentations[0].method.id, "b");
}

TEST(SqliteStoreTest, RunsInWalMode) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-wal-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  {
    Database db({Backend::kSqlite, (dir / "signet.db").string(), 4});
    db.read([](Db& session) {
      EXPECT_EQ(session.queryOne("PRAGMA journal_mode")->str("journal_mode"), "wal");
    });
  }
  std::filesystem::remove_all(dir);
}

// signet_given(NAME) returns what this thread gave under NAME while the GivenTexts that holds it
// lives, the innermost first, and NULL for a name nothing holds and once the scope has ended.
TEST(SqliteStoreTest, SignetGivenReturnsWhatThisThreadGivesForAsLongAsItGivesIt) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-given-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  {
    Database db({Backend::kSqlite, (dir / "signet.db").string(), 4});
    auto given = [&](const std::string& name) {
      std::optional<std::string> value;
      db.read([&](Db& session) {
        value = session.queryOne("SELECT signet_given(?) AS v", {name})->optStr("v");
      });
      return value;
    };
    const std::vector<std::pair<std::string, std::string>> outer = {{"a", "1"}, {"b", "2"}},
                                                           inner = {{"a", "3"}};
    {
      GivenTexts first(outer);
      EXPECT_EQ(given("a"), "1");
      {
        GivenTexts second(inner);
        EXPECT_EQ(given("a"), "3");
        EXPECT_EQ(given("b"), "2");
      }
      EXPECT_EQ(given("a"), "1");
      EXPECT_EQ(given("c"), std::nullopt);
      // Another thread gave nothing.
      std::optional<std::string> elsewhere = "unread";
      std::thread([&] { elsewhere = given("a"); }).join();
      EXPECT_EQ(elsewhere, std::nullopt);
    }
    EXPECT_EQ(given("a"), std::nullopt);
  }
  std::filesystem::remove_all(dir);
}

// A COMMIT returns only once the WAL is synced: synchronous=FULL (2) on the connection that
// commits the write batches, and on every connection of the pool, which reads use at once
// here so that each is opened and asked.
TEST(SqliteStoreTest, EveryConnectionSyncsAtEachCommit) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-sync-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  {
    Database db({Backend::kSqlite, (dir / "signet.db").string(), 4});
    db.transaction([](Db& session) {
      EXPECT_EQ(session.queryOne("PRAGMA synchronous")->i64("synchronous"), 2);
      session.exec("CREATE TABLE synced (n INTEGER)");
    });
    std::atomic<int> inside{0}, full{0};
    std::vector<std::thread> readers;
    for (int i = 0; i < 4; ++i)
      readers.emplace_back([&] {
        db.read([&](Db& session) {
          if (session.queryOne("PRAGMA synchronous")->i64("synchronous") == 2) ++full;
          // Held until all four are inside, so that each has a connection of its own.
          ++inside;
          for (int spin = 0; spin < 500 && inside < 4; ++spin)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        });
      });
    for (auto& t : readers) t.join();
    EXPECT_EQ(inside, 4);
    EXPECT_EQ(full, 4);
  }
  std::filesystem::remove_all(dir);
}

// The gateway turns SQLite's process-wide allocation statistics off (sqlite_connection.cpp):
// with them on, sqlite3_memory_used counts what the open connection holds.
TEST(SqliteStoreTest, KeepsNoMemoryStatisticsWhoseMutexEveryConnectionWouldShare) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-memstatus-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  {
    Database db({Backend::kSqlite, (dir / "signet.db").string(), 4});
    db.read([](Db& session) { session.queryOne("SELECT count(*) FROM sqlite_master"); });
    EXPECT_EQ(sqlite3_memory_used(), 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_P(StoreTest, AFailedTransactionLeavesNothing) {
  db_->migrate("widgets", widgetMigrations(1));
  EXPECT_THROW(db_->transaction([](Db& db) {
    db.exec("INSERT INTO widgets (id, n) VALUES (?, ?)", {std::string("x"), int64_t{1}});
    throw std::runtime_error("handler failed");
  }),
               std::runtime_error);
  int64_t n = -1;
  db_->read([&](Db& db) { n = db.queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"); });
  EXPECT_EQ(n, 0);
  // A constraint violation rolls back too.
  EXPECT_ANY_THROW(db_->transaction([](Db& db) {
    db.exec("INSERT INTO widgets (id, n) VALUES (?, ?)", {std::string("y"), int64_t{1}});
    db.exec("INSERT INTO widgets (id, n) VALUES (?, ?)", {std::string("y"), int64_t{2}});
  }));
  db_->read([&](Db& db) { n = db.queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"); });
  EXPECT_EQ(n, 0);
}

TEST_P(StoreTest, KeyringSealsBindsAndOpens) {
  db_->migrate("core", {keyringMigration(1), keyringRotationMigration(2)});
  crypto::SecretBytes master(crypto::randomBytes(32));
  crypto::SecretBytes secret(toBytes("abandon abandon ability"));
  db_->transaction([&](Db& db) { DbKeyring(db, master).seal("wallet-1", "mnemonic", secret); });
  db_->read([&](Db& db) {
    DbKeyring keyring(db, master);
    EXPECT_EQ(toString(keyring.open("wallet-1", "mnemonic").bytes()), "abandon abandon ability");
    // Stored ciphertext is not the plaintext.
    auto row = db.queryOne("SELECT ciphertext FROM signet_secrets WHERE id = ?",
                           {std::string("wallet-1")});
    EXPECT_EQ(row->str("ciphertext").find(toHex(toBytes("abandon"))), std::string::npos);
    EXPECT_THROW(keyring.open("wallet-1", "private-key"), Error);
    crypto::SecretBytes other(crypto::randomBytes(32));
    EXPECT_THROW(DbKeyring(db, other).open("wallet-1", "mnemonic"), Error);
  });
  // A ciphertext copied onto another record does not open there.
  db_->transaction([&](Db& db) {
    db.exec(
        "INSERT INTO signet_secrets (id, kind, key_version, nonce, ciphertext, created_at_ms) "
        "SELECT 'wallet-2', kind, key_version, nonce, ciphertext, created_at_ms FROM "
        "signet_secrets WHERE id = 'wallet-1'");
  });
  db_->read(
      [&](Db& db) { EXPECT_THROW(DbKeyring(db, master).open("wallet-2", "mnemonic"), Error); });
}

// A secret's cells read by a statement of the caller's own (SealedSecret::column, here beside
// the rows of a table that names its secrets) open as the keyring's own read does, on both
// stores: a kind with spaces in it, the copy under the next key of a rotation that stopped
// halfway, no secret at all (nullopt), and cells opened as another secret or another kind
// (refused: id and kind are bound into the ciphertext).
TEST_P(StoreTest, ASecretsCellsReadWithAnotherStatementOpenAsTheKeyringsOwnRead) {
  db_->migrate("core", {keyringMigration(1), keyringRotationMigration(2)});
  crypto::SecretBytes master(crypto::randomBytes(32)), next(crypto::randomBytes(32));
  db_->transaction([&](Db& db) {
    db.exec("CREATE TABLE holders (id TEXT PRIMARY KEY, secret_id TEXT NOT NULL)");
    for (const char* id : {"1", "2", "3"})
      db.exec("INSERT INTO holders (id, secret_id) VALUES (?, ?)",
              {std::string(id), std::string("k-") + id});
    DbKeyring(db, master).seal("k-1", "private key", crypto::SecretBytes(toBytes("one")));
    // k-2 under the old key and, beside it, the next one: a rotation stopped before the swap.
    DbKeyring(db, next).seal("k-2", "private key", crypto::SecretBytes(toBytes("two")));
    auto underNext = db.queryOne("SELECT nonce, ciphertext FROM signet_secrets WHERE id = 'k-2'");
    DbKeyring(db, master).seal("k-2", "private key", crypto::SecretBytes(toBytes("two")));
    db.exec("UPDATE signet_secrets SET next_nonce = ?, next_ciphertext = ? WHERE id = 'k-2'",
            {underNext->str("nonce"), underNext->str("ciphertext")});
  });
  db_->read([&](Db& db) {
    auto cells = [&](const std::string& holder) {
      return SealedSecret::fromRow(*db.queryOne(
          "SELECT h.id, " + SealedSecret::column("h.secret_id") + " FROM holders h WHERE h.id = ?",
          {holder}));
    };
    auto one = cells("1");
    ASSERT_TRUE(one);
    EXPECT_EQ(one->kind, "private key");
    EXPECT_FALSE(one->nextNonce);
    DbKeyring keyring(db, master);
    EXPECT_EQ(toString(keyring.open("k-1", "private key", *one).bytes()), "one");
    EXPECT_EQ(toString(keyring.open("k-1", "private key").bytes()), "one");
    // The old copy does not open under `next`, the next one does; under `master`, the old one.
    auto two = cells("2");
    ASSERT_TRUE(two && two->nextCiphertext);
    EXPECT_EQ(toString(DbKeyring(db, next).open("k-2", "private key", *two).bytes()), "two");
    EXPECT_EQ(toString(keyring.open("k-2", "private key", *two).bytes()), "two");
    EXPECT_FALSE(cells("3"));  // no secret k-3
    try {
      keyring.open("k-3", "private key");
      ADD_FAILURE() << "a missing secret opened";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Code::kNotFound);
    }
    EXPECT_THROW(keyring.open("k-2", "private key", *one), Error);  // k-1's cells as k-2
    EXPECT_THROW(keyring.open("k-1", "mnemonic", *one), Error);
  });
}

TEST(MasterKeyTest, CreatedPrivateAndRefusedWhenOthersCanRead) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-mk-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  auto file = dir / "master.key";
  MasterKey::create(file);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(MasterKey::load(file).size(), 32u);
  EXPECT_THROW(MasterKey::create(file), Error);
  ::chmod(file.c_str(), 0644);
  EXPECT_THROW(MasterKey::load(file), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
