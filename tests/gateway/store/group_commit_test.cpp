// Group commit on both backends: concurrent writers share transactions, a failing writer rolls
// back only its own writes (a thrown error, or a statement the database refused), and a caller
// returns only once its write is visible to everyone. Snapshots refuse writes.
#include <atomic>
#include <fstream>
#include <latch>
#include <thread>

#include "config/config.hpp"
#include "signet/metrics.hpp"
#include "store/database.hpp"
#include "store/sql_connection.hpp"
#include "support/metric_sample.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class GroupCommitTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || HasFailure()) return;
    dir_ = std::filesystem::temp_directory_path() / ("signet-commit-" + crypto::uuidV4());
    std::filesystem::create_directories(dir_);
    scratch_ = std::make_unique<ScratchDatabase>(GetParam(), dir_);
    db_ = std::make_unique<Database>(scratch_->config());
    db_->migrate(
        "widgets",
        {{1, "widgets", {"CREATE TABLE widgets (id TEXT PRIMARY KEY, n BIGINT NOT NULL)"}}});
  }
  void TearDown() override {
    db_.reset();
    scratch_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  int64_t count(const std::string& where = "1 = 1") {
    int64_t n = -1;
    // A second Database: what another process (or gateway) sees once a caller has returned.
    Database other(scratch_->config());
    other.read([&](Db& db) {
      n = db.queryOne("SELECT COUNT(*) AS total FROM widgets WHERE " + where)->i64("total");
    });
    return n;
  }
  static void insert(Db& db, const std::string& id, int64_t n) {
    db.exec("INSERT INTO widgets (id, n) VALUES (?, ?)", {id, n});
  }
  std::filesystem::path dir_;
  std::unique_ptr<ScratchDatabase> scratch_;
  std::unique_ptr<Database> db_;
};
SIGNET_BACKEND_SUITE(GroupCommitTest);

// 24 writers start together; each holds its write open for a moment so that the others queue
// behind the first batch. Writer 7 throws after writing, and writer 13 repeats a primary key
// of its own so that the database refuses its third statement: both roll back alone, the 22
// others commit, and fewer commits than writers happened.
TEST_P(GroupCommitTest, ConcurrentWritersShareCommitsAndAFailureRollsBackOnlyItself) {
  constexpr int kWriters = 24;
  std::latch start(kWriters);
  std::vector<std::string> outcome(kWriters);
  std::vector<std::thread> threads;
  auto before = db_->commitStats();
  const std::string metricsBefore = Metrics::global().render();
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        db_->transaction([&](Db& db) {
          insert(db, "w" + std::to_string(i), i);
          insert(db, "extra" + std::to_string(i), i);
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          if (i == 7) throw std::runtime_error("writer 7 fails");
          if (i == 13) insert(db, "w13", 13);  // refused by the database: a duplicate key
        });
        outcome[i] = "committed";
      } catch (const std::exception& e) {
        outcome[i] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kWriters; ++i) {
    if (i == 7)
      EXPECT_EQ(outcome[i], "writer 7 fails");
    else if (i == 13)
      EXPECT_NE(outcome[i], "committed");
    else
      EXPECT_EQ(outcome[i], "committed") << "writer " << i;
  }
  EXPECT_EQ(count(), 2 * (kWriters - 2));
  EXPECT_EQ(count("id IN ('w7', 'extra7', 'w13', 'extra13')"), 0);
  EXPECT_EQ(count("id = 'w12' AND n = 12"), 1);
  auto after = db_->commitStats();
  EXPECT_EQ(after.writes - before.writes, static_cast<uint64_t>(kWriters));
  EXPECT_LT(after.batches - before.batches, static_cast<uint64_t>(kWriters))
      << "every writer committed alone";

  // The durability histograms: each write timed once from the queue to its commit, and once
  // for its wait in the queue; each committed batch once (writer 7's batch may have been itself
  // alone, rolled back and not committed). A write's time holds its own 2 ms of work and its
  // batch's commit.
  const std::string metricsAfter = Metrics::global().render();
  auto moved = [&](const std::string& series) {
    return std::max(0.0, metricSample(metricsAfter, series)) -
           std::max(0.0, metricSample(metricsBefore, series));
  };
  EXPECT_EQ(moved("signet_store_write_seconds_count"), kWriters);
  EXPECT_EQ(moved("signet_store_write_queued_seconds_count"), kWriters);
  const double batches = static_cast<double>(after.batches - before.batches);
  EXPECT_GE(moved("signet_store_commit_seconds_count"), batches - 1);
  EXPECT_LE(moved("signet_store_commit_seconds_count"), batches);
  EXPECT_GE(moved("signet_store_write_seconds_sum"), kWriters * 0.002);
  EXPECT_GE(
      moved("signet_store_write_seconds_sum"),
      moved("signet_store_write_queued_seconds_sum") + moved("signet_store_commit_seconds_sum"));
}

TEST_P(GroupCommitTest, AWriteReturnsOnlyOnceCommittedAndAWriteInsideAWriteIsRefused) {
  for (int i = 0; i < 5; ++i) {
    db_->transaction([&](Db& db) { insert(db, "seq" + std::to_string(i), i); });
    EXPECT_EQ(count(), i + 1);  // seen from another connection as soon as the call returned
  }
  EXPECT_THROW(db_->transaction([&](Db&) { db_->transaction([](Db&) {}); }), Error);
  // The refused inner write left the store usable.
  db_->transaction([&](Db& db) { insert(db, "after", 1); });
  EXPECT_EQ(count("id = 'after'"), 1);
}

// post(): the caller does not wait for the batch. While another writer holds the one lane, three
// posted writes return at once with nothing completed; once the lane is free a committing
// thread of the store's leads their batch (not the writer that held the lane, which returns once
// its own write is done) and calls each completion after the commit, when the row is already
// visible to another connection. The write that throws gets its own error and left nothing; a
// post with the lane free leads on the caller's thread and completes before it returns.
TEST_P(GroupCommitTest, APostedWriteLeavesItsCallerFreeAndCompletesAfterItsCommit) {
  std::atomic<bool> holding{false}, release{false};
  std::thread holder([&] {
    db_->transaction([&](Db& db) {
      insert(db, "held", 0);
      holding = true;
      for (int i = 0; i < 500 && !release; ++i)  // bounded: 5 s at most
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
  });
  for (int i = 0; i < 500 && !holding; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(holding);

  struct Outcome {
    std::atomic<int> calls{0};
    std::string error;     // empty: committed
    int64_t visible = -1;  // the row, counted from another connection inside the completion
    std::thread::id on;    // the thread that called it
  };
  Outcome outcomes[3];
  for (int i = 0; i < 3; ++i) {
    const std::string id = "posted" + std::to_string(i);
    db_->transactionThen(
        [id, i](Db& db) {
          insert(db, id, i);
          if (i == 1) throw std::runtime_error("posted write 1 fails");
        },
        [this, id, &outcome = outcomes[i]](std::exception_ptr failure) {
          try {
            if (failure) std::rethrow_exception(failure);
          } catch (const std::exception& e) {
            outcome.error = e.what();
          }
          outcome.visible = count("id = '" + id + "'");
          outcome.on = std::this_thread::get_id();
          ++outcome.calls;
        });
  }
  EXPECT_FALSE(release) << "post() waited for the lane";
  for (const auto& o : outcomes) EXPECT_EQ(o.calls, 0) << "completed before its batch ran";

  release = true;
  const std::thread::id holderId = holder.get_id();
  holder.join();
  for (int i = 0; i < 500; ++i) {  // bounded: 5 s at most
    if (outcomes[0].calls + outcomes[1].calls + outcomes[2].calls == 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(outcomes[i].calls, 1) << "posted write " << i;
  EXPECT_EQ(outcomes[0].error, "");
  EXPECT_EQ(outcomes[0].visible, 1);
  EXPECT_EQ(outcomes[1].error, "posted write 1 fails");
  EXPECT_EQ(outcomes[1].visible, 0);
  EXPECT_EQ(outcomes[2].error, "");
  EXPECT_EQ(outcomes[2].visible, 1);
  for (const auto& o : outcomes) {
    EXPECT_NE(o.on, holderId) << "the writer that held the lane led the posted writes";
    EXPECT_NE(o.on, std::this_thread::get_id());
  }
  EXPECT_EQ(count("id = 'held'"), 1);

  // The lane free: the caller leads, and the completion has run when post() returns.
  std::thread::id completedOn;
  db_->transactionThen([](Db& db) { insert(db, "alone", 9); },
                       [&](std::exception_ptr) { completedOn = std::this_thread::get_id(); });
  EXPECT_EQ(completedOn, std::this_thread::get_id());
  EXPECT_EQ(count("id = 'alone'"), 1);
}

TEST_P(GroupCommitTest, ASnapshotReadsButRefusesWrites) {
  db_->transaction([&](Db& db) { insert(db, "a", 1); });
  db_->snapshot([&](Db& db) {
    EXPECT_EQ(db.queryOne("SELECT n FROM widgets WHERE id = 'a'")->i64("n"), 1);
    EXPECT_ANY_THROW(insert(db, "b", 2));
  });
  EXPECT_EQ(count(), 1);
  // The connection went back to the pool usable: writes still work, through the batches.
  db_->transaction([&](Db& db) { insert(db, "c", 3); });
  EXPECT_EQ(count(), 2);
}

TEST_P(GroupCommitTest, StatementsArePreparedOncePerConnection) {
  auto connection = openConnection(scratch_->config());
  size_t atOpen = connection->preparedStatements();  // SQLite's pragmas at open
  for (int i = 0; i < 50; ++i)
    connection->query("SELECT n FROM widgets WHERE id = ?", {std::string("x") + std::to_string(i)});
  EXPECT_EQ(connection->preparedStatements(), atOpen + 1);
}

// A batch whose before-commit step fails is rolled back whole, and with it whatever that step
// set up again in the session (the activity log's noting, lost to a pooler's DISCARD ALL): the
// writers' setup runs again after the rollback, outside any transaction, so that the next batch
// finds the session set up. The session's state here is a temporary table of the connection's.
TEST_P(GroupCommitTest, ASessionSetUpAgainInsideAFailedBatchIsSetUpAgainAfterItsRollback) {
  auto config = scratch_->config();
  config.writeLanes = 1;  // one writer connection: the session that lost its state is the next's
  Database db(config);
  bool checking = false;
  db.setWriteHooks(
      [](Db& c) { c.exec("CREATE TEMP TABLE IF NOT EXISTS session_mark (x INTEGER)"); },
      [&](Db& c) {
        if (checking) c.queryOne("SELECT COUNT(*) AS n FROM session_mark");
        return std::function<void(Db&)>();
      });
  db.transaction([](Db& c) { insert(c, "set-up", 1); });
  // The session loses its state, committed (as a pooler's reset would, between transactions).
  db.transaction([](Db& c) { c.exec("DROP TABLE session_mark"); });
  checking = true;
  EXPECT_ANY_THROW(db.transaction([](Db& c) { insert(c, "refused", 2); }));
  // Set up again after that rollback: the next batch commits.
  EXPECT_NO_THROW(db.transaction([](Db& c) { insert(c, "after", 3); }));
  EXPECT_EQ(count("id = 'refused'"), 0);
  EXPECT_EQ(count("id = 'after'"), 1);
}

// The before-commit step runs in two parts around the writes' steps: its start once the writes
// are sent, then the steps, then the finish the start returned, then the COMMIT. A finish that
// throws fails the batch whole, and the session is set up again after the rollback.
TEST_P(GroupCommitTest, TheBeforeCommitStepStartsBeforeTheStepsAndFinishesAfterThem) {
  auto config = scratch_->config();
  config.writeLanes = 1;
  Database db(config);
  std::vector<std::string> events;
  int setUps = 0;
  bool finishFails = false;
  db.setWriteHooks([&](Db&) { ++setUps; },
                   [&](Db&) -> std::function<void(Db&)> {
                     events.push_back("start");
                     return [&](Db&) {
                       events.push_back("finish");
                       if (finishFails) throw std::runtime_error("the finish fails");
                     };
                   });
  db.transaction([&](Db& c) {
    insert(c, "stepped", 1);
    events.push_back("write");
    Database::afterWrites([&](Db&) { events.push_back("step"); });
  });
  EXPECT_EQ(events, (std::vector<std::string>{"write", "start", "step", "finish"}));
  EXPECT_EQ(count("id = 'stepped'"), 1);

  finishFails = true;
  const int setUpsBefore = setUps;
  EXPECT_THROW(db.transaction([&](Db& c) { insert(c, "refused", 2); }), std::runtime_error);
  EXPECT_EQ(count("id = 'refused'"), 0);
  EXPECT_EQ(setUps, setUpsBefore + 1);  // set up again after the rollback
}

// A batch as GroupCommit runs it, on one connection: three writes of two rows, then a fourth
// the database refuses, rolled back to its own savepoint. On PostgreSQL the BEGIN, each
// SAVEPOINT and each RELEASE go with the statement after them, so the batch costs a round trip
// per statement, one for the rollback and one for the COMMIT: 9 (18 when each command was sent
// alone). A savepoint never made cannot be rolled back to, so a mistaken one fails instead of
// undoing an earlier write's rows.
TEST_P(GroupCommitTest, ABatchSendsItsTransactionCommandsWithItsStatements) {
  auto connection = openConnection(scratch_->config());
  insert(*connection, "warm", 0);  // the statement prepared before counting
  const size_t before = connection->roundTrips();
  connection->begin();
  for (int n = 1; n <= 3; ++n) {
    connection->savepoint(n);
    insert(*connection, "a" + std::to_string(n), n);
    insert(*connection, "b" + std::to_string(n), n);
    connection->releaseSavepoint(n);
  }
  connection->savepoint(4);
  EXPECT_ANY_THROW(insert(*connection, "a1", 4));  // a duplicate key
  connection->rollbackToSavepoint(4);
  connection->releaseSavepoint(4);
  connection->commit();
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(connection->roundTrips() - before, 9u);
  }
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count(), 7);
  EXPECT_EQ(count("id = 'a1' AND n = 1"), 1);

  // A snapshot that read nothing never reached the server. One read costs one round trip: its
  // ROLLBACK is sent without waiting, the server still ends the transaction at once (another
  // connection sees this one idle), and the next use reads the answer.
  const std::string total = "SELECT COUNT(*) AS total FROM widgets";
  connection->queryOne(total);  // prepared before counting
  const auto backend = GetParam() == Backend::kPostgres
                           ? connection->queryOne("SELECT pg_backend_pid() AS pid")->i64("pid")
                           : 0;
  const size_t quiet = connection->roundTrips();
  connection->beginSnapshot();
  connection->endSnapshot();
  EXPECT_EQ(connection->roundTrips(), quiet);
  connection->beginSnapshot();
  EXPECT_EQ(connection->queryOne(total)->i64("total"), 7);
  connection->endSnapshot();
  EXPECT_TRUE(connection->healthy());
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(connection->roundTrips() - quiet, 1u);
    auto observer = openConnection(scratch_->config());
    std::string state;
    for (int i = 0; i < 200 && state != "idle"; ++i) {  // the ROLLBACK on its way: at most 2 s
      if (i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      state = observer->queryOne("SELECT state FROM pg_stat_activity WHERE pid = ?", {backend})
                  ->str("state");
    }
    EXPECT_EQ(state, "idle");
  }
  EXPECT_TRUE(connection->alive());  // how the pool hands it out next: the answer is read here
  EXPECT_EQ(connection->queryOne(total)->i64("total"), 7);

  connection->begin();
  connection->savepoint(1);
  insert(*connection, "c1", 1);
  connection->releaseSavepoint(1);
  EXPECT_ANY_THROW(connection->rollbackToSavepoint(2));
  connection->rollback();
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count("id = 'c1'"), 0);
}

// A row change whose answer no one reads (execUnanswered) waits on PostgreSQL and goes with the
// next statement: a write of three inserts costs one round trip and its COMMIT another. Its
// failure is reported by whatever goes next, here the next write's statement, and the whole
// transaction has failed with it: that write cannot roll back to its own savepoint either (as
// GroupCommit then fails the whole batch). A COMMIT of a transaction left failed is an error,
// not a rollback answered as a success, and in a read-only snapshot nothing waits. SQLite runs
// such a change at once, and a failed statement there undoes only itself.
TEST_P(GroupCommitTest, RowsNoOneReadsGoWithTheNextStatementAndTheirFailureFailsTheTransaction) {
  const bool postgres = GetParam() == Backend::kPostgres;
  const std::string sql = "INSERT INTO widgets (id, n) VALUES (?, ?)";
  auto connection = openConnection(scratch_->config());
  insert(*connection, "warm", 0);  // the statement prepared before counting
  const size_t before = connection->roundTrips();
  connection->begin();
  connection->savepoint(1);
  insert(*connection, "a", 1);
  connection->execUnanswered(sql, {std::string("b"), int64_t{1}});
  connection->execUnanswered(sql, {std::string("c"), int64_t{1}});
  connection->releaseSavepoint(1);
  connection->commit();
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 2u);
  }
  EXPECT_EQ(count("n = 1"), 3);

  connection->begin();
  connection->savepoint(1);
  insert(*connection, "d", 2);
  if (postgres) {
    connection->execUnanswered(sql, {std::string("a"), int64_t{2}});  // a duplicate key
    connection->releaseSavepoint(1);
    connection->savepoint(2);
    try {
      insert(*connection, "e", 2);
      ADD_FAILURE() << "the waiting duplicate was not reported";
    } catch (const DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("INSERT INTO widgets"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("duplicate key"), std::string::npos) << e.what();
    }
    EXPECT_THROW(connection->rollbackToSavepoint(2), DatabaseError);
  } else {
    EXPECT_THROW(connection->execUnanswered(sql, {std::string("a"), int64_t{2}}), DatabaseError);
  }
  connection->rollback();
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count("n = 2"), 0);

  connection->begin();
  insert(*connection, "f", 3);
  EXPECT_THROW(insert(*connection, "a", 3), DatabaseError);
  if (postgres)
    EXPECT_THROW(connection->commit(), DatabaseError);
  else
    connection->commit();
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count("n = 3"), postgres ? 0 : 1);
  EXPECT_EQ(count("id = 'a' AND n = 1"), 1);

  // In a snapshot it does not wait: the refusal reaches the write that made it.
  connection->beginSnapshot();
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS total FROM widgets WHERE n = 1")->i64("total"),
            3);
  EXPECT_THROW(connection->execUnanswered(sql, {std::string("g"), int64_t{4}}), DatabaseError);
  connection->endSnapshot();
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count("n = 4"), 0);
}

// A read whose answer is wanted later (queryAhead) waits on PostgreSQL, as a row change no one
// reads does, and goes with the next statement: the read and the write after it cost one round
// trip. It sees the transaction's earlier writes. Read before anything else went, it is sent
// alone; dropped with a rolled-back transaction, reading it is an error, not an empty answer.
// SQLite answers it at once.
TEST_P(GroupCommitTest, AReadSentAheadGoesWithTheNextStatementAndSeesEarlierWrites) {
  const bool postgres = GetParam() == Backend::kPostgres;
  const std::string read = "SELECT id FROM widgets WHERE n = ? ORDER BY id";
  const std::string sql = "INSERT INTO widgets (id, n) VALUES (?, ?)";
  auto connection = openConnection(scratch_->config());
  insert(*connection, "warm", 0);  // the statements prepared before counting
  connection->query(read, {int64_t{0}});
  size_t before = connection->roundTrips();
  connection->begin();
  connection->execUnanswered(sql, {std::string("a"), int64_t{1}});
  auto ahead = connection->queryAhead(read, {int64_t{1}});
  insert(*connection, "b", 1);  // after the read: not in its answer
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 1u);
  }
  ASSERT_EQ(ahead->rows().size(), 1u);
  EXPECT_EQ(ahead->rows()[0].str("id"), "a");
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 1u);
  }

  before = connection->roundTrips();
  auto alone = connection->queryAhead(read, {int64_t{1}});
  ASSERT_EQ(alone->rows().size(), 2u);
  EXPECT_EQ(alone->rows()[1].str("id"), "b");
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 1u);
  }
  connection->commit();
  EXPECT_EQ(count("n = 1"), 2);

  connection->begin();
  insert(*connection, "c", 2);
  auto dropped = connection->queryAhead(read, {int64_t{2}});
  connection->rollback();
  if (postgres)
    EXPECT_THROW(dropped->rows(), DatabaseError);
  else
    EXPECT_EQ(dropped->rows().size(), 1u);  // answered before the rollback
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(count("n = 2"), 0);
}

// In a read-only snapshot a read sent ahead waits too (ActivitySpec::readAhead's reads): the
// snapshot's BEGIN, the read and the statement after it are one round trip on PostgreSQL, and the
// read sees the snapshot. A snapshot that ends with a read still waiting sends nothing of it: the
// read is dropped (an error to read, not an empty answer) and the connection is fit to lend.
TEST_P(GroupCommitTest, AReadSentAheadInASnapshotGoesWithItsFirstStatement) {
  const bool postgres = GetParam() == Backend::kPostgres;
  const std::string read = "SELECT id FROM widgets WHERE n = ? ORDER BY id";
  auto connection = openConnection(scratch_->config());
  insert(*connection, "a", 1);
  connection->query(read, {int64_t{1}});  // both prepared before counting
  connection->query("SELECT COUNT(*) AS n FROM widgets");
  size_t before = connection->roundTrips();
  connection->beginSnapshot();
  auto ahead = connection->queryAhead(read, {int64_t{1}});
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"), 1);
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 1u);
  }
  ASSERT_EQ(ahead->rows().size(), 1u);
  EXPECT_EQ(ahead->rows()[0].str("id"), "a");
  if (postgres) {
    EXPECT_EQ(connection->roundTrips() - before, 1u);
  }
  connection->endSnapshot();

  connection->beginSnapshot();
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"), 1);
  auto unread = connection->queryAhead(read, {int64_t{1}});
  connection->endSnapshot();
  if (postgres)
    EXPECT_THROW(unread->rows(), DatabaseError);
  else
    EXPECT_EQ(unread->rows().size(), 1u);  // answered at once
  EXPECT_TRUE(connection->alive());
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS n FROM widgets WHERE n = 1")->i64("n"), 1);

  // Read first thing after a snapshot whose ROLLBACK's answer is still unread: it is sent.
  connection->beginSnapshot();
  connection->queryOne("SELECT COUNT(*) AS n FROM widgets");
  connection->endSnapshot();
  connection->beginSnapshot();
  ASSERT_EQ(connection->queryAhead(read, {int64_t{1}})->rows().size(), 1u);
  connection->endSnapshot();

  // On PostgreSQL a read the server refuses (a division by zero; SQLite answers NULL) fails the
  // statement it went with, naming the read; the connection ends the snapshot and serves the
  // next one.
  if (!postgres) return;
  const std::string refused = "SELECT 1 / (n - 1) AS x FROM widgets WHERE n = ?";
  connection->query(refused, {int64_t{0}});  // prepared
  connection->beginSnapshot();
  auto failing = connection->queryAhead(refused, {int64_t{1}});
  try {
    connection->queryOne("SELECT COUNT(*) AS n FROM widgets");
    ADD_FAILURE() << "the refused read went unnoticed";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("1 / (n - 1)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(failing->rows(), DatabaseError);
  connection->endSnapshot();
  EXPECT_TRUE(connection->alive());
  EXPECT_TRUE(connection->healthy());
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"), 1);
}

// A read sent ahead whose plan the server refuses after a schema change (another gateway
// enabling a plugin) is prepared again for the next transaction, as a statement run alone is:
// the refusal fails that one snapshot, not every later use of the connection.
TEST_P(GroupCommitTest, AReadSentAheadWhosePlanIsRefusedIsPreparedAgain) {
  if (GetParam() != Backend::kPostgres) return;  // SQLite prepares again by itself
  const std::string read = "SELECT * FROM widgets WHERE n = ?";
  auto connection = openConnection(scratch_->config());
  insert(*connection, "a", 1);
  connection->query(read, {int64_t{1}});
  connection->query("SELECT COUNT(*) AS n FROM widgets");
  openConnection(scratch_->config())->exec("ALTER TABLE widgets ADD COLUMN note TEXT");
  connection->beginSnapshot();
  auto stale = connection->queryAhead(read, {int64_t{1}});
  EXPECT_THROW(connection->queryOne("SELECT COUNT(*) AS n FROM widgets"), DatabaseError);
  connection->endSnapshot();
  ASSERT_TRUE(connection->alive());
  connection->beginSnapshot();
  auto again = connection->queryAhead(read, {int64_t{1}});
  EXPECT_EQ(connection->queryOne("SELECT COUNT(*) AS n FROM widgets")->i64("n"), 1);
  ASSERT_EQ(again->rows().size(), 1u);
  EXPECT_TRUE(again->rows()[0].isNull("note"));
  connection->endSnapshot();
}

// SQLite has one writer: batches never overlap. PostgreSQL with database.writeLanes = 3 runs up
// to three batches at once, each in its own transaction.
TEST_P(GroupCommitTest, BatchesOverlapOnlyInTheLanesPostgreSqlIsGiven) {
  DatabaseConfig config = scratch_->config();
  config.writeLanes = 3;
  Database lanes(config);
  std::atomic<int> inside{0}, most{0};
  std::latch start(12);
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      lanes.transaction([&](Db& db) {
        int now = ++inside;
        for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        insert(db, "lane" + std::to_string(i), i);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        --inside;
      });
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(count("id LIKE 'lane%'"), 12);
  if (GetParam() == Backend::kSqlite)
    EXPECT_EQ(most.load(), 1);
  else
    EXPECT_GT(most.load(), 1);
  EXPECT_LE(most.load(), 3);
}

// Posts `writes` while another write holds the only lane (the store's default is one), so that
// they all run in one batch once it lets go; what each ended with ("" when committed).
std::vector<std::string> postAsOneBatch(Database& database,
                                        const std::vector<std::function<void(Db&)>>& writes) {
  std::atomic<bool> holding{false}, release{false};
  std::thread holder([&] {
    database.transaction([&](Db&) {
      holding = true;
      for (int i = 0; i < 500 && !release; ++i)  // bounded: 5 s at most
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
  });
  for (int i = 0; i < 500 && !holding; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // Shared with the completions, which may outlive a wait that gave up.
  struct Ends {
    std::mutex mutex;
    std::vector<std::string> outcomes;
    size_t ended = 0;
  };
  auto ends = std::make_shared<Ends>();
  ends->outcomes.resize(writes.size());
  for (size_t i = 0; i < writes.size(); ++i)
    database.transactionThen(writes[i], [ends, i](std::exception_ptr failure) {
      std::string outcome;
      try {
        if (failure) std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        outcome = e.what();
      }
      std::lock_guard lock(ends->mutex);
      ends->outcomes[i] = outcome;
      ++ends->ended;
    });
  release = true;
  holder.join();
  auto ended = [&] {
    std::lock_guard lock(ends->mutex);
    return ends->ended;
  };
  for (int i = 0; i < 500 && ended() < writes.size(); ++i)  // bounded: 5 s at most
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(ended(), writes.size());
  std::lock_guard lock(ends->mutex);
  return ends->outcomes;
}

// A write's steps (Database::afterWrites) run once every write of its batch was sent, in the
// writes' order, and read what the writes sent ahead: on PostgreSQL the batch's inserts and
// savepoints are all answered in one round trip, the first step's. A write that fails drops its
// steps with its savepoint. A step that throws fails the whole batch, and nothing of it is
// stored, since its write's savepoint is gone by then. Outside a write a step is refused.
TEST_P(GroupCommitTest, StepsAfterTheWritesReadWhatTheBatchSentAheadAndAFailingStepFailsIt) {
  const bool postgres = GetParam() == Backend::kPostgres;
  EXPECT_THROW(Database::afterWrites([](Db&) {}), Error);
  const std::string sql = "INSERT INTO widgets (id, n) VALUES (?, ?) RETURNING n";
  db_->transaction([&](Db& db) { db.query(sql, {std::string("warm"), int64_t{0}}); });
  std::mutex mutex;
  std::vector<std::string> events;
  auto note = [&](const std::string& event) {
    std::lock_guard lock(mutex);
    events.push_back(event);
  };
  size_t tripsBefore = 0, tripsAfter = 0;
  auto write = [&](int i, bool fails, bool stepFails) {
    return [&, i, fails, stepFails](Db& db) {
      auto& connection = static_cast<SqlConnection&>(db);
      if (i == 0) tripsBefore = connection.roundTrips();
      note("write " + std::to_string(i));
      auto sent = db.queryAhead(sql, {"sent" + std::to_string(i), int64_t{i}});
      Database::afterWrites([&, i, sent, stepFails](Db& db) {
        note("step " + std::to_string(i) + " read " + std::to_string(sent->rows().at(0).i64("n")));
        tripsAfter = static_cast<SqlConnection&>(db).roundTrips();
        if (stepFails) throw std::runtime_error("step " + std::to_string(i) + " fails");
      });
      if (fails) throw std::runtime_error("write " + std::to_string(i) + " fails");
    };
  };

  auto outcomes = postAsOneBatch(*db_, {write(0, false, false), write(1, false, false),
                                        write(2, false, false), write(3, false, false)});
  EXPECT_EQ(outcomes, std::vector<std::string>(4));
  EXPECT_EQ(events,
            (std::vector<std::string>{"write 0", "write 1", "write 2", "write 3", "step 0 read 0",
                                      "step 1 read 1", "step 2 read 2", "step 3 read 3"}));
  if (postgres) {
    EXPECT_EQ(tripsAfter - tripsBefore, 1u);
  }
  EXPECT_EQ(count("id LIKE 'sent%'"), 4);

  events.clear();
  outcomes =
      postAsOneBatch(*db_, {write(4, false, false), write(5, true, false), write(6, false, false)});
  EXPECT_EQ(outcomes, (std::vector<std::string>{"", "write 5 fails", ""}));
  EXPECT_EQ(events, (std::vector<std::string>{"write 4", "write 5", "write 6", "step 4 read 4",
                                              "step 6 read 6"}));
  EXPECT_EQ(count("id IN ('sent4', 'sent5', 'sent6')"), 2);

  outcomes = postAsOneBatch(*db_, {write(7, false, false), write(8, false, true)});
  EXPECT_EQ(outcomes, (std::vector<std::string>{"step 8 fails", "step 8 fails"}));
  EXPECT_EQ(count("id IN ('sent7', 'sent8')"), 0);
  // The lane is fit for the next batch.
  db_->transaction([&](Db& db) { insert(db, "after", 9); });
  EXPECT_EQ(count("id = 'after'"), 1);

  // A lone write, which has no savepoint, runs its steps the same way, and a failing one fails
  // it, nothing of it stored.
  std::vector<std::string> lone;
  db_->transaction([&](Db& db) {
    auto sent = db.queryAhead(sql, {std::string("lone"), int64_t{11}});
    Database::afterWrites(
        [&, sent](Db&) { lone.push_back("read " + std::to_string(sent->rows().at(0).i64("n"))); });
    lone.push_back("written");
  });
  EXPECT_EQ(lone, (std::vector<std::string>{"written", "read 11"}));
  EXPECT_EQ(count("id = 'lone'"), 1);
  EXPECT_THROW(db_->transaction([&](Db& db) {
    insert(db, "lone failing", 12);
    Database::afterWrites([](Db&) { throw std::runtime_error("the lone step fails"); });
  }),
               std::runtime_error);
  EXPECT_EQ(count("id = 'lone failing'"), 0);

  // An insert sent ahead that the store refuses (a key already stored) is reported on
  // PostgreSQL by the next write's statement, whose savepoint the pipeline then never made:
  // both writes fail with the refusal, not with that savepoint's absence. SQLite runs the
  // insert at once, and only its own write fails.
  outcomes = postAsOneBatch(*db_, {[&](Db& db) {
                                     db.queryAhead(sql, {std::string("sent0"), int64_t{0}});
                                   },
                                   [&](Db& db) { insert(db, "reporter", 10); }});
  EXPECT_NE(outcomes[0], "");
  EXPECT_EQ(outcomes[0].find("savepoint"), std::string::npos) << outcomes[0];
  if (postgres) {
    EXPECT_NE(outcomes[0].find("duplicate key"), std::string::npos) << outcomes[0];
    EXPECT_EQ(outcomes[1], outcomes[0]);
    EXPECT_EQ(count("id = 'reporter'"), 0);
  } else {
    EXPECT_EQ(outcomes[1], "");
    EXPECT_EQ(count("id = 'reporter'"), 1);
  }
}

// The SQLite files this process holds open that SQLite made for itself: temporary files
// (statement and savepoint journals) are named etilqs_* and deleted as soon as they are open.
int openTemporaryFiles() {
  int n = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.find("etilqs_") != std::string::npos) ++n;
  }
  return n;
}

// A write that changes about 400 KiB of pages already in the store, then fails. Its savepoint
// keeps those pages as they were, in memory (temp_store=MEMORY) rather than in a temporary file
// past 64 KiB, and rolling back to it restores every row.
TEST_P(GroupCommitTest, AFailedLargeWriteRollsBackFromASavepointKeptInMemory) {
  const std::string padding(2000, 'a');  // ids of 2 KB: 200 rows fill about 100 table pages
  db_->transaction([&](Db& db) {
    for (int i = 0; i < 200; ++i)
      db.exec("INSERT INTO widgets (id, n) VALUES (?, ?)", {padding + std::to_string(i), i});
  });
  int temporaryFiles = -1;
  EXPECT_THROW(db_->transaction([&](Db& db) {
    db.exec("UPDATE widgets SET n = n + 1000", {});
    temporaryFiles = openTemporaryFiles();
    throw std::runtime_error("the write fails after changing every row");
  }),
               std::runtime_error);
  if (GetParam() == Backend::kSqlite) {
    EXPECT_EQ(temporaryFiles, 0);
  }
  EXPECT_EQ(count("n >= 1000"), 0);
  EXPECT_EQ(count(), 200);
}

TEST(DatabaseConfigTest, WriteLanesOutOfRangeAreRefusedNamingTheValue) {
  auto dir = std::filesystem::temp_directory_path() / ("signet-lanes-" + crypto::uuidV4());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "signet.json")
      << R"({"database": {"driver": "postgresql", "connection": "host=127.0.0.1", "writeLanes": 0}})";
  try {
    Config::load(dir);
    ADD_FAILURE() << "writeLanes 0 was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "signet.json: invalid field database.writeLanes: expected 1 to 16, not 0"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace signet::test
