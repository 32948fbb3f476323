// A PostgreSQL failover under two serving gateways, as docs/high-availability.md describes it:
// Debian's PostgreSQL on loopback, a primary with a synchronous standby, and two `signet serve`
// processes sharing both through one multi-host connection string (target_session_attrs=
// read-write). Clients write memos and read through both gateways while the primary is killed
// with SIGKILL (its every process: a lost machine) and, a moment later, the standby promoted.
//
// What must hold: every activity a client was answered COMPLETED is on the promoted standby;
// both gateways serve writes again without a restart; and no answer was a 500: while no
// writable server exists, each request is a 503 with Retry-After, which clients retry.
// Bounded: each phase ends after a fixed number of requests or seconds, whichever comes first.
#include <Poco/Net/ServerSocket.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "store/sql_connection.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kPostgresScript = std::string(SIGNET_TEST_SOURCE_DIR) + "/../scripts/postgres.sh";

// scripts/postgres.sh ACTION ARGS: its exit code and the line it printed.
std::pair<int, std::string> postgres(const std::vector<std::string>& args) {
  std::vector<std::string> all{kPostgresScript};
  all.insert(all.end(), args.begin(), args.end());
  Poco::Pipe out;
  auto handle = Poco::Process::launch("/bin/bash", all, nullptr, &out, nullptr);
  Poco::PipeInputStream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return {handle.wait(), text};
}

bool postgresInstalled() {
  return !fs::is_empty("/usr/lib/postgresql") && fs::exists(kPostgresScript);
}

uint16_t freePort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  return socket.address().port();
}

// What the clients saw, across both gateways.
struct Tally {
  std::mutex mutex;
  std::map<std::string, int> acknowledged;  // activity id -> the gateway that answered it
  std::map<int, int> statuses;              // HTTP status -> answers
  int unavailableWithoutRetryAfter = 0;     // 503s that did not say when to retry
  std::vector<std::string> unexpected;      // anything else: its status and body
  std::atomic<int> acknowledgedBy[2] = {0, 0};
  std::atomic<int> unavailable{0};
};

void record(Tally& t, const HttpResponse& r) {
  std::lock_guard lock(t.mutex);
  ++t.statuses[r.status];
  if (r.status == 200) return;
  if (r.status == 503) {
    ++t.unavailable;
    bool retryAfter = false;
    for (const auto& [name, value] : r.headers) retryAfter |= name == "Retry-After";
    if (!retryAfter) ++t.unavailableWithoutRetryAfter;
    return;
  }
  if (t.unexpected.size() < 10) t.unexpected.push_back(std::to_string(r.status) + " " + r.body);
}

TEST(FailoverTest, KillThePrimaryPromoteTheStandbyAndNothingAcknowledgedIsLost) {
  if (!postgresInstalled()) {
    const char* required = std::getenv("SIGNET_REQUIRE_POSTGRES");
    if (required && std::string(required) == "1") FAIL() << "no PostgreSQL in /usr/lib/postgresql";
    GTEST_SKIP() << "PostgreSQL is not installed (scripts/setup.sh installs it)";
  }
  // World-readable, so that the postgres user reaches the servers' folders below it.
  fs::path base = fs::temp_directory_path() / ("signet-failover-" + crypto::uuidV4());
  fs::create_directories(base);
  fs::permissions(base, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  const std::string primaryDir = (base / "primary").string(),
                    standbyDir = (base / "standby").string();
  const uint16_t primaryPort = freePort(), standbyPort = freePort();
  // Stopped and removed however the test ends (after the gateways, declared later).
  struct Servers {
    fs::path base;
    std::string primary, standby;
    ~Servers() {
      postgres({"stop", standby});
      postgres({"stop", primary});
      fs::remove_all(base);
    }
  } servers{base, primaryDir, standbyDir};
  auto [started, primary] = postgres({"start", primaryDir, std::to_string(primaryPort)});
  ASSERT_EQ(started, 0) << primary;
  openPostgres(primary + " dbname=postgres")->exec("CREATE DATABASE signet");
  auto [joined, standby] =
      postgres({"standby", standbyDir, std::to_string(standbyPort), std::to_string(primaryPort)});
  ASSERT_EQ(joined, 0) << standby;

  // Two data directories on the one store: the same configuration and the same master key.
  const std::string connection = "host=127.0.0.1,127.0.0.1 port=" + std::to_string(primaryPort) +
                                 "," + std::to_string(standbyPort) +
                                 " user=postgres dbname=signet target_session_attrs=read-write "
                                 "connect_timeout=5";
  const std::string config = R"({"database": {"driver": "postgresql", "connection": ")" +
                             connection + R"("}, "plugins": {"enabled": ["memo"]},
      "limits": {"rateLimit": {"perIpPerSecond": 0, "perOrganizationPerSecond": 0}}})";
  const fs::path dirs[2] = {base / "gateway-a", base / "gateway-b"};
  for (const auto& dir : dirs) {
    fs::create_directories(dir);
    std::ofstream(dir / "signet.json") << config;
  }
  auto init = runSignet({"init", "--data-dir", dirs[0].string()});
  ASSERT_EQ(init.exitCode, 0) << init.err;
  fs::copy_file(dirs[0] / "master.key", dirs[1] / "master.key");
  const auto org = createOrganizationWithCli(dirs[0].string(), "Failover", "operator");
  const std::string& orgId = org.organizationId;
  auto stamper = ApiKeyStamper::fromHex(org.apiPrivateKey);

  ServeProcess gateways[2] = {ServeProcess(dirs[0].string()), ServeProcess(dirs[1].string())};
  Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  // Four clients a gateway, each writing a memo, and every fourth time reading it back.
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      const int g = c % 2;
      Client client(gateways[g].baseUrl(), stamper);
      std::string last;
      for (int n = 0; n < 20000 && !stop; ++n) {
        json::Object memo = json::object();
        memo->set("text", "client " + std::to_string(c) + " memo " + std::to_string(n));
        HttpResponse r;
        try {
          if (n % 4 == 3 && !last.empty()) {
            json::Object q = orgBody(orgId);
            q->set("activityId", last);
            r = client.post("/public/v1/query/get_activity", json::stringify(q));
          } else {
            r = client.post("/public/v1/submit/signet_create_memo",
                            activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", orgId, memo));
          }
        } catch (const std::exception& e) {  // no answer at all is as bad as a 500
          std::lock_guard lock(tally.mutex);
          tally.unexpected.push_back(std::string("no answer: ") + e.what());
          continue;
        }
        record(tally, r);
        if (r.status != 200) continue;
        auto activity = json::parseObject(r.body, "answer")->getObject("activity");
        if (activity->getValue<std::string>("type") != "ACTIVITY_TYPE_SIGNET_CREATE_MEMO") continue;
        EXPECT_EQ(activity->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
        last = activity->getValue<std::string>("id");
        std::lock_guard lock(tally.mutex);
        if (tally.acknowledged.emplace(last, g).second) ++tally.acknowledgedBy[g];
      }
    });
  }
  // Waits (bounded) until `done` holds; whether it did.
  auto waitFor = [](const std::function<bool()>& done, std::chrono::seconds limit) {
    for (auto end = Clock::now() + limit; Clock::now() < end;) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  };
  auto stopClients = [&] {
    stop = true;
    for (auto& t : clients) t.join();
    clients.clear();
  };
  // The clients end before anything they use, however the test ends.
  struct Joined {
    std::function<void()> stop;
    ~Joined() { stop(); }
  } clientsJoined{stopClients};

  const auto loadStarted = Clock::now();
  auto elapsed = [&] {
    return std::to_string(
               std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - loadStarted)
                   .count()) +
           " ms";
  };
  // Both gateways under load on the primary.
  bool loaded =
      waitFor([&] { return tally.acknowledgedBy[0] >= 300 && tally.acknowledgedBy[1] >= 300; },
              std::chrono::seconds(60));
  ASSERT_TRUE(loaded) << "the gateways acknowledged " << tally.acknowledgedBy[0] << " and "
                      << tally.acknowledgedBy[1] << " activities in a minute";

  // The primary is lost. Until the standby is promoted no server takes writes: each request
  // is refused with a 503 (counted), none hangs and none is a 500.
  ASSERT_EQ(postgres({"crash", primaryDir}).first, 0);
  const std::string crashedAt = elapsed();
  const int unavailableBefore = tally.unavailable;
  bool refused = waitFor([&] { return tally.unavailable >= unavailableBefore + 20; },
                         std::chrono::seconds(30));
  const int before[2] = {tally.acknowledgedBy[0], tally.acknowledgedBy[1]};
  auto [promoted, promoteOut] = postgres({"promote", standbyDir});
  const std::string promotedAt = elapsed();
  const auto promotionDone = Clock::now();
  // Both gateways write again, with no restart: each acknowledges more activities.
  bool recovered = waitFor(
      [&] {
        return tally.acknowledgedBy[0] >= before[0] + 100 &&
               tally.acknowledgedBy[1] >= before[1] + 100;
      },
      std::chrono::seconds(60));
  const auto recoveredIn =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - promotionDone).count();
  stopClients();
  EXPECT_TRUE(refused) << "no request was refused while no server took writes";
  ASSERT_EQ(promoted, 0) << promoteOut;
  EXPECT_TRUE(recovered) << "after the promotion the gateways acknowledged "
                         << tally.acknowledgedBy[0] - before[0] << " and "
                         << tally.acknowledgedBy[1] - before[1] << " more activities";

  std::string statuses;
  for (const auto& [status, count] : tally.statuses)
    statuses += " " + std::to_string(status) + ": " + std::to_string(count);
  std::cout << "primary killed " << crashedAt << " into the load, standby promoted at "
            << promotedAt << "; answers:" << statuses << "; " << tally.acknowledged.size()
            << " activities acknowledged; both gateways writing again " << recoveredIn
            << " ms after the promotion\n";
  EXPECT_EQ(tally.statuses.count(500), 0u) << statuses;
  for (const auto& [status, count] : tally.statuses)
    EXPECT_TRUE(status == 200 || status == 503) << status << " answered " << count << " times";
  EXPECT_TRUE(tally.unexpected.empty()) << tally.unexpected.front();
  EXPECT_EQ(tally.unavailableWithoutRetryAfter, 0);

  // Every acknowledged activity, and its memo, is on the promoted standby.
  auto promotedStore = openPostgres(standby + " dbname=signet");
  std::set<std::string> stored, memos;
  for (const auto& row :
       promotedStore->query("SELECT id FROM activities WHERE status = 'ACTIVITY_STATUS_COMPLETED'"))
    stored.insert(row.str("id"));
  for (const auto& row : promotedStore->query("SELECT activity_id FROM memo_entries"))
    memos.insert(row.str("activity_id"));
  size_t lost = 0, memoLost = 0;
  for (const auto& [id, gateway] : tally.acknowledged) {
    lost += stored.count(id) == 0;
    memoLost += memos.count(id) == 0;
  }
  EXPECT_EQ(lost, 0u) << "of " << tally.acknowledged.size() << " acknowledged activities";
  EXPECT_EQ(memoLost, 0u) << "memos of " << tally.acknowledged.size() << " acknowledged activities";

  for (auto& g : gateways) EXPECT_EQ(g.stop(), 0);
}

}  // namespace
}  // namespace signet::test
