// SQLite's WAL checkpoints run on the checkpointer's thread, not inside commits: the log
// still stops growing (it is reused once checkpointed), every committed row stays readable
// from a fresh connection, and the file stays sound.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "signet/crypto.hpp"
#include "store/database.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class SqliteCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("signet-checkpoint-" + crypto::uuidV4());
    std::filesystem::create_directories(dir_);
    scratch_ = std::make_unique<ScratchDatabase>(Backend::kSqlite, dir_);
    db_ = std::make_unique<Database>(scratch_->config());
    db_->migrate("blobs", {{1, "blobs", {"CREATE TABLE blobs (n BIGINT PRIMARY KEY, b TEXT)"}}});
  }
  void TearDown() override {
    db_.reset();
    scratch_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  uintmax_t walBytes() const {
    std::error_code ec;
    auto size = std::filesystem::file_size(scratch_->config().connection + "-wal", ec);
    return ec ? 0 : size;
  }
  std::filesystem::path dir_;
  std::unique_ptr<ScratchDatabase> scratch_;
  std::unique_ptr<Database> db_;
};

static constexpr uintmax_t kPage = 4096;
const std::string kBlob(512 * 1024, 'x');  // 128 pages and a few

// 40 commits of 128 pages each write five times the threshold. After each the test waits
// for the checkpointer to be idle, so the next commit finds the log copied and starts it
// again from its beginning: without the checkpointer (the connections' own checkpoints being
// off) the log would hold all 5,120 pages.
TEST_F(SqliteCheckpointerTest, CheckpointsOffTheCommitPathKeepTheLogBounded) {
  constexpr int kCommits = 40;
  uintmax_t largest = 0;
  for (int n = 0; n < kCommits; ++n) {
    db_->transaction([&](Db& db) {
      db.exec("INSERT INTO blobs (n, b) VALUES (?, ?)", {n, kBlob});
    });
    ASSERT_TRUE(db_->checkpointsIdle(std::chrono::seconds(10))) << "after commit " << n;
    largest = std::max(largest, walBytes());
  }
  auto stats = db_->checkpointStats();
  EXPECT_GE(stats.checkpoints, 4u);
  EXPECT_GE(stats.pages, 4u * SqliteCheckpointer::kThresholdPages);
  EXPECT_EQ(stats.inCommit, 0u);
  EXPECT_LT(largest, 2 * SqliteCheckpointer::kThresholdPages * kPage)
      << "the log was not reused after its checkpoints";

  // Everything committed is there for a connection of its own, and the file is sound.
  auto other = openConnection(scratch_->config());
  auto totals = other->queryOne("SELECT COUNT(*) AS n, SUM(LENGTH(b)) AS bytes FROM blobs");
  EXPECT_EQ(totals->i64("n"), kCommits);
  EXPECT_EQ(totals->i64("bytes"), static_cast<int64_t>(kCommits * kBlob.size()));
  EXPECT_EQ(other->queryOne("PRAGMA integrity_check")->str("integrity_check"), "ok");
}

// Commits back to back leave the thread no quiet moment to finish a copy: the commit that
// finds the log past kInlinePages checkpoints by itself, so 20,000 pages written never make
// a log of more than about 6,000.
TEST_F(SqliteCheckpointerTest, ACommitCheckpointsByItselfWhenTheThreadFallsBehind) {
  constexpr int kCommits = 160;
  uintmax_t largest = 0;
  for (int n = 0; n < kCommits; ++n) {
    db_->transaction([&](Db& db) {
      db.exec("INSERT INTO blobs (n, b) VALUES (?, ?)", {n, kBlob});
    });
    largest = std::max(largest, walBytes());
  }
  EXPECT_LT(largest, 6000 * kPage);
  auto other = openConnection(scratch_->config());
  EXPECT_EQ(other->queryOne("SELECT COUNT(*) AS n FROM blobs")->i64("n"), kCommits);
  EXPECT_EQ(other->queryOne("PRAGMA integrity_check")->str("integrity_check"), "ok");
}

// A reader on an old snapshot keeps the log from being started again, as steady traffic
// does, so it stays past the threshold. Small commits there do not each wake the thread:
// the next checkpoint is due once the log has grown by the threshold again.
TEST_F(SqliteCheckpointerTest, PastTheThresholdACheckpointIsDueOncePerThresholdOfGrowth) {
  auto insertBlob = [&](int n) {
    db_->transaction([&](Db& db) {
      db.exec("INSERT INTO blobs (n, b) VALUES (?, ?)", {n, kBlob});
    });
  };
  for (int n = 0; n < 4; ++n) insertBlob(n);  // 512 pages, not yet checkpointed
  auto reader = openConnection(scratch_->config());
  reader->beginSnapshot();
  ASSERT_EQ(reader->queryOne("SELECT COUNT(*) AS n FROM blobs")->i64("n"), 4);
  for (int n = 4; n < 8; ++n) insertBlob(n);  // past the threshold: one checkpoint
  ASSERT_TRUE(db_->checkpointsIdle(std::chrono::seconds(10)));
  const uint64_t before = db_->checkpointStats().checkpoints;
  EXPECT_GE(before, 1u);
  for (int n = 0; n < 50; ++n) {  // a page or two each: far less than the threshold in all
    db_->transaction(
        [&](Db& db) { db.exec("INSERT INTO blobs (n, b) VALUES (?, 'x')", {100 + n}); });
    ASSERT_TRUE(db_->checkpointsIdle(std::chrono::seconds(10))) << "after commit " << n;
  }
  EXPECT_EQ(db_->checkpointStats().checkpoints, before);
  reader->endSnapshot();
  EXPECT_EQ(db_->checkpointStats().inCommit, 0u);
}

// Below the threshold nothing is checkpointed: the commits do not wake the thread.
TEST_F(SqliteCheckpointerTest, ASmallLogIsLeftAlone) {
  for (int n = 0; n < 20; ++n)
    db_->transaction([&](Db& db) { db.exec("INSERT INTO blobs (n, b) VALUES (?, 'x')", {n}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(db_->checkpointStats().checkpoints, 0u);
}

}  // namespace
}  // namespace signet::test
