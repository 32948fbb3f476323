// The store failing under a serving gateway, for real: PostgreSQL terminates every connection
// the gateway holds (idle ones are replaced before they are lent, as the first test shows by
// the requests after it), or the one connection a request is using, while it waits for a lock
// the test holds; PostgreSQL refuses COMMIT (a deferred constraint trigger that raises while a
// switch is on); the kernel refuses SQLite's writes as a full disk does. The gateway answers
// each affected request with an error (a 503 with Retry-After where the store was lost, which
// clients retry; a query is retried once on a fresh connection first), keeps every activity it
// acknowledged, stores nothing of what it refused, and serves again without a restart. The
// loss of a whole server and a failover to its standby are in failover_test.cpp.
#include <signal.h>
#include <sys/resource.h>

#include <future>
#include <thread>

#include "signet/metrics.hpp"
#include "store/sql_connection.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

std::string databaseName(const TestGateway& gw) {
  const std::string& connection =
      const_cast<TestGateway&>(gw).gateway().config().database.connection;
  auto at = connection.find("dbname=");
  return connection.substr(at + 7, connection.find(' ', at) - at - 7);
}

// A tag named `name` in the root organization: its HTTP status and, when acknowledged, the
// activity id.
std::pair<int, std::string> createTag(TestGateway& gw, const std::string& name) {
  json::Object p = json::object();
  p->set("userTagName", name);
  p->set("userIds", json::array());
  auto r = gw.rootClient().post(
      "/public/v1/submit/create_user_tag",
      activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", gw.root().organizationId, p));
  if (r.status != 200) {
    // An error the client can read: {code, message}, never a dropped connection.
    auto error = json::parseObject(r.body, "error");
    EXPECT_TRUE(error->has("code") && error->has("message")) << r.body;
    return {r.status, ""};
  }
  auto activity = json::parseObject(r.body, "answer")->getObject("activity");
  EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  return {r.status, activity->getValue<std::string>("id")};
}

// Counted on a connection of the test's own, not the gateway's pool under test.
int64_t countIn(TestGateway& gw, const std::string& sql, const SqlParams& params) {
  auto db =
      openPostgres(std::string(std::getenv("SIGNET_TEST_PG")) + " dbname=" + databaseName(gw));
  return db->queryOne(sql, params)->i64("n");
}

int64_t tagsNamed(TestGateway& gw, const std::string& name) {
  return countIn(gw, "SELECT COUNT(*) AS n FROM user_tags WHERE name = ?", {name});
}

TEST(StoreFaultTest, LostPostgresConnectionsAreErrorsAndTheGatewayRecovers) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres, {});
  std::vector<std::string> acknowledged;
  // Several at once, so that the pool holds several connections.
  std::vector<std::future<std::pair<int, std::string>>> warm;
  for (int i = 0; i < 6; ++i)
    warm.push_back(std::async(std::launch::async,
                              [&gw, i] { return createTag(gw, "before-" + std::to_string(i)); }));
  for (auto& f : warm) {
    auto [status, id] = f.get();
    ASSERT_EQ(status, 200);
    acknowledged.push_back(id);
  }

  // PostgreSQL ends every connection of the gateway's database (an administrator's
  // pg_terminate_backend, a failover, a restarted server look the same to the client).
  auto admin = openPostgres(std::string(std::getenv("SIGNET_TEST_PG")) + " dbname=postgres");
  auto killed =
      admin->query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?",
                   {databaseName(gw)});
  ASSERT_GE(killed.size(), 1u);

  // Idle connections are checked before they are lent; the ones in use when their backend died
  // fail their request with an error.
  int errors = 0;
  for (int i = 0; i < 12; ++i) {
    auto [status, id] = createTag(gw, "after-" + std::to_string(i));
    if (status == 200) {
      acknowledged.push_back(id);
      EXPECT_EQ(tagsNamed(gw, "after-" + std::to_string(i)), 1);
    } else {
      ++errors;
      EXPECT_EQ(status, 503);  // the store was lost under it: to be retried, not a 500
      EXPECT_EQ(tagsNamed(gw, "after-" + std::to_string(i)), 0);  // refused: nothing of it
    }
  }
  // Dead connections are dropped as they fail, so the last requests are served again.
  for (int i = 0; i < 3; ++i) {
    auto [status, id] = createTag(gw, "recovered-" + std::to_string(i));
    ASSERT_EQ(status, 200) << "after " << errors << " errors the gateway did not recover";
    acknowledged.push_back(id);
  }
  // Nothing acknowledged was lost.
  for (const auto& id : acknowledged)
    EXPECT_EQ(countIn(gw, "SELECT COUNT(*) AS n FROM activities WHERE id = ?", {id}), 1) << id;
}

// A connection of the test's own, holding `table` locked (ACCESS EXCLUSIVE) until release():
// a gateway request that touches the table waits on it, in a backend this finds and ends.
class TableLock {
 public:
  TableLock(TestGateway& gw, const std::string& table)
      : db_(openPostgres(std::string(std::getenv("SIGNET_TEST_PG")) +
                         " dbname=" + databaseName(gw))) {
    db_->exec("BEGIN");
    db_->exec("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
  }
  // Ends the backend that waits for the lock, once one does (bounded); whether there was one.
  bool terminateWaiter() {
    for (int i = 0; i < 500; ++i) {
      auto rows = db_->query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
          "current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      if (!rows.empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  void release() { db_->exec("COMMIT"); }

 private:
  std::unique_ptr<SqlConnection> db_;
};

bool hasHeader(const HttpResponse& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return true;
  return false;
}

TEST(StoreFaultTest, AQueryWhoseConnectionIsLostIsRetriedOnAFreshOne) {
  if (!postgresAvailable()) GTEST_SKIP() << "no PostgreSQL server (SIGNET_TEST_PG)";
  TestGateway gw(Backend::kPostgres, {});
  auto query = [&] {
    return gw.rootClient().post("/public/v1/query/whoami",
                                json::stringify(orgBody(gw.root().organizationId)));
  };
  ASSERT_EQ(query().status, 200);
  // Every request reads the directory's generation first: the query waits there.
  TableLock lock(gw, "directory_generation");
  auto answer = std::async(std::launch::async, query);
  ASSERT_TRUE(lock.terminateWaiter()) << "the query never waited for the lock";
  lock.release();
  auto r = answer.get();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parseObject(r.body, "whoami")->getValue<std::string>("organizationId"),
            gw.root().organizationId);
}

// An activity whose connection is lost while it runs: nothing of it is stored, not even as a
// failed activity, and the answer is a 503 with Retry-After; the same request sent again is
// served. For a core activity, and for a plugin's (its handler runs behind the plugin guard).
TEST(StoreFaultTest, AnActivityWhoseConnectionIsLostIsA503AndStoresNothing) {
  if (!postgresAvailable()) GTEST_SKIP() << "no PostgreSQL server (SIGNET_TEST_PG)";
  TestGateway gw(Backend::kPostgres, {"memo"});
  const std::string org = gw.root().organizationId;
  json::Object tag = json::object();
  tag->set("userTagName", "lost");
  tag->set("userIds", json::array());
  json::Object memo = json::object();
  memo->set("text", "lost");
  struct Case {
    std::string table, path, body;
  };
  for (const auto& c :
       std::vector<Case>{{"user_tags", "create_user_tag",
                          activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", org, tag)},
                         {"memo_entries", "signet_create_memo",
                          activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", org, memo)}}) {
    SCOPED_TRACE(c.path);
    const int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
    auto send = [&] { return gw.rootClient().post("/public/v1/submit/" + c.path, c.body); };
    TableLock lock(gw, c.table);
    auto answer = std::async(std::launch::async, send);
    ASSERT_TRUE(lock.terminateWaiter()) << "the activity never waited for the lock";
    lock.release();
    auto r = answer.get();
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_TRUE(hasHeader(r, "Retry-After"));
    EXPECT_EQ(json::parseObject(r.body, "error")->getValue<int>("code"),
              static_cast<int>(Code::kUnavailable));
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities);
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM " + c.table), 0);
    // The client's retry, the same body: served now.
    auto again = send();
    ASSERT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(json::parseObject(again.body, "answer")
                  ->getObject("activity")
                  ->getValue<std::string>("status"),
              "ACTIVITY_STATUS_COMPLETED");
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM " + c.table), 1);
  }
}

// PostgreSQL itself refuses COMMIT while the switch is on: the trigger is deferred to commit.
// Switched with setCommitRefused.
void installCommitSwitch(TestGateway& gw) {
  gw.write([](Db& db) {
    db.exec("CREATE TABLE fault_switch (refuse_commit BOOLEAN NOT NULL)");
    db.exec("INSERT INTO fault_switch VALUES (false)");
    db.exec(
        "CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF (SELECT "
        "refuse_commit FROM fault_switch) THEN RAISE EXCEPTION 'commit refused by the fault "
        "switch'; END IF; RETURN NULL; END $$");
    db.exec(
        "CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT ON activities DEFERRABLE INITIALLY "
        "DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit()");
  });
}

void setCommitRefused(TestGateway& gw, bool refused) {
  gw.write([refused](Db& db) {
    db.exec(std::string("UPDATE fault_switch SET refuse_commit = ") + (refused ? "true" : "false"));
  });
}

double commitFailures() {
  std::string text = Metrics::global().render();
  auto at = text.find("\nsignet_store_commit_failures_total ");
  return at == std::string::npos ? 0.0 : std::stod(text.substr(at + 36));
}

TEST(StoreFaultTest, AFailedCommitStoresNothingOfItsBatchAndTheNextOneCommits) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres, {});
  installCommitSwitch(gw);
  auto failures = commitFailures;
  ASSERT_EQ(createTag(gw, "first").first, 200);
  int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  double failuresBefore = failures();

  setCommitRefused(gw, true);
  // Several at once: whole batches fail, and every write in them with it.
  std::vector<std::future<std::pair<int, std::string>>> refused;
  for (int i = 0; i < 6; ++i)
    refused.push_back(std::async(
        std::launch::async, [&gw, i] { return createTag(gw, "refused-" + std::to_string(i)); }));
  for (int i = 0; i < 6; ++i) {
    EXPECT_GE(refused[static_cast<size_t>(i)].get().first, 500);
    EXPECT_EQ(tagsNamed(gw, "refused-" + std::to_string(i)), 0);
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities);
  EXPECT_GT(failures(), failuresBefore);

  setCommitRefused(gw, false);
  auto [status, id] = createTag(gw, "after");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(tagsNamed(gw, "after"), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), activities + 1);
  EXPECT_EQ(tagsNamed(gw, "first"), 1);
}

// Signatures are answered from their batch's commit, not by a thread waiting for it
// (answer_from_commit_test.cpp): a refused COMMIT answers every signature of the batch with an
// error, and none of them is stored.
TEST(StoreFaultTest, ARefusedCommitAnswersEveryWaitingSignatureWithAnErrorAndStoresNone) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres, {"signing"});
  const std::string org = gw.root().organizationId;
  const std::string address = newEthereumAddress(gw.rootClient(), org, "signer");
  installCommitSwitch(gw);
  auto sign = [&](const std::string& payload) {
    auto r = gw.rootClient().post(
        "/public/v1/submit/sign_raw_payload",
        activityBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                     signParams(address, payload, "PAYLOAD_ENCODING_HEXADECIMAL",
                                "HASH_FUNCTION_KECCAK256")));
    if (r.status != 200) {
      auto error = json::parseObject(r.body, "error");
      EXPECT_TRUE(error->has("code") && error->has("message")) << r.body;
    }
    return r.status;
  };
  const std::string signatures =
      "SELECT COUNT(*) AS n FROM activities WHERE type = 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'";
  const int64_t before = countIn(gw, signatures, {});
  const double failuresBefore = commitFailures();

  setCommitRefused(gw, true);
  std::vector<std::future<int>> refused;
  for (int i = 0; i < 8; ++i)
    refused.push_back(std::async(std::launch::async, [&, i] {
      char payload[16];
      std::snprintf(payload, sizeof payload, "%08x", i);
      return sign(payload);
    }));
  for (auto& r : refused) EXPECT_GE(r.get(), 500);
  EXPECT_EQ(countIn(gw, signatures, {}), before);
  EXPECT_GT(commitFailures(), failuresBefore);

  setCommitRefused(gw, false);
  EXPECT_EQ(sign("0a0b0c0d"), 200);
  EXPECT_EQ(countIn(gw, signatures, {}), before + 1);
}

// The kernel refuses SQLite's writes past a size (RLIMIT_FSIZE, with SIGXFSZ ignored, so that a
// write fails with EFBIG instead of ending the process): what a full disk does to a write. The
// limit is set just above the store's files, so the WAL cannot grow.
struct FileSizeLimit {
  rlimit previous{};
  explicit FileSizeLimit(rlim_t bytes) {
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &previous);
    rlimit limit = previous;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() { lift(); }
  void lift() { setrlimit(RLIMIT_FSIZE, &previous); }
};

TEST(StoreFaultTest, AFullDiskIsAnErrorAndWritesResumeOnceThereIsRoom) {
  TestGateway gw(Backend::kSqlite, {});
  ASSERT_EQ(createTag(gw, "before").first, 200);
  auto sizeOf = [&](const std::string& name) -> rlim_t {
    std::error_code ec;
    auto n = std::filesystem::file_size(gw.dataDir() / name, ec);
    return ec ? 0 : n;
  };
  rlim_t largest = std::max(sizeOf("signet.db"), sizeOf("signet.db-wal"));
  std::vector<std::string> acknowledged;
  int refused = 0;
  {
    FileSizeLimit full(largest + 4096);
    for (int i = 0; i < 40 && refused < 3; ++i) {
      auto [status, id] = createTag(gw, "full-" + std::to_string(i));
      if (status == 200) {
        acknowledged.push_back(id);
      } else {
        ++refused;
        EXPECT_GE(status, 500);
      }
    }
    EXPECT_GE(refused, 1) << "the writes never reached the limit";
    // Reads still work while writes cannot.
    EXPECT_EQ(httpGet(gw.baseUrl(), "/healthz").status, 200);
    EXPECT_NO_THROW(gw.rootClient().query("whoami", orgBody(gw.root().organizationId)));
  }
  // Room again: the same gateway, no restart.
  for (int i = 0; i < 3; ++i) {
    auto [status, id] = createTag(gw, "room-" + std::to_string(i));
    ASSERT_EQ(status, 200) << "the gateway did not recover after the disk had room";
    acknowledged.push_back(id);
  }
  for (const auto& id : acknowledged)
    EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE id = ?", {id}), 1) << id;
  // What was refused left nothing behind: every tag stored has its acknowledged activity.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM user_tags WHERE name LIKE 'full-%'"),
            static_cast<int64_t>(acknowledged.size()) - 3);
  gw.restart();  // and the file opens cleanly afterwards
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"),
            static_cast<int64_t>(acknowledged.size()) + 1);
}

}  // namespace
}  // namespace signet::test
