// A signature's answer is written from its write batch's commit (docs/durability.md, "Answers
// from the commit"): the thread that read the request does not sleep until the batch commits.
// These tests hold the batch back with a lock of their own on the store, from outside the
// gateway, as another writer would: SQLite's write lock (BEGIN IMMEDIATE on the file) or, on
// PostgreSQL, the activities table in EXCLUSIVE mode (reads go on, writes wait).
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <future>
#include <thread>

#include "config/config.hpp"
#include "store/database.hpp"
#include "store/sql_connection.hpp"
#include "support/signing_fixtures.hpp"
#include "support/test_gateway.hpp"

namespace signet::test {
namespace {

class WriteBlocker {
 public:
  explicit WriteBlocker(TestGateway& gw) : db_(openConnection(gw.gateway().config().database)) {
    if (gw.gateway().database().backend() == Backend::kSqlite) {
      db_->exec("BEGIN IMMEDIATE");
    } else {
      db_->exec("BEGIN");
      db_->exec("LOCK TABLE activities IN EXCLUSIVE MODE");
    }
  }
  void release() { db_->exec("COMMIT"); }

 private:
  std::unique_ptr<SqlConnection> db_;
};

class AnswerFromCommitTest : public BackendTest {};
SIGNET_BACKEND_SUITE(AnswerFromCommitTest);

// Four clients send a signature and hang up while its batch waits for the lock; a fifth waits
// for its answer, which does not come before the commit. Once the lock goes, the batch commits
// all five (the four answers have nowhere to go) and the fifth is answered; the gateway serves
// on.
TEST_P(AnswerFromCommitTest, AClientGoneWhileItsSignatureWaitsForTheCommitStallsNothing) {
  TestGateway gw(GetParam(), {"signing"});
  const std::string org = gw.root().organizationId;
  const std::string address = newEthereumAddress(gw.rootClient(), org, "signer");
  auto signature = [&](int n) {
    char payload[16];
    std::snprintf(payload, sizeof payload, "%08x", n);
    return activityBody(
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
        signParams(address, payload, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"));
  };
  const std::string signatures =
      "SELECT COUNT(*) FROM activities WHERE type = 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'";
  const int64_t before = gw.count(signatures);

  WriteBlocker blocker(gw);
  for (int i = 0; i < 4; ++i) {
    std::string body = signature(i);
    auto [header, stamp] = gw.rootStamper()->stamp(body);
    std::string request =
        "POST /public/v1/submit/sign_raw_payload HTTP/1.1\r\nHost: x\r\n" + header + ": " + stamp +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
    socket.sendBytes(request.data(), static_cast<int>(request.size()));
    socket.close();  // gone before any answer
  }
  auto stays = std::async(std::launch::async, [&] {
    return gw.rootClient().post("/public/v1/submit/sign_raw_payload", signature(100));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_EQ(stays.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "answered before its write was committed";

  blocker.release();
  ASSERT_EQ(stays.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto answer = stays.get();
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(json::parseObject(answer.body, "answer")
                ->getObject("activity")
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  EXPECT_TRUE(eventually([&] { return gw.count(signatures) == before + 5; }, 5000))
      << gw.count(signatures) - before << " of 5 signatures stored";

  json::Object again = gw.rootClient().submit(
      "sign_raw_payload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
      signParams(address, "0a0b0c0d", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256"));
  EXPECT_EQ(again->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
}

// One handler slot (threads = 1): signatures waiting for their commit do not hold it, so a query
// sent meanwhile is answered while they still wait. Were each waiting in its thread, the query
// would queue behind them until the lock went.
TEST_P(AnswerFromCommitTest, SignaturesWaitingForTheirCommitHoldNoHandlerSlot) {
  TestGateway gw(GetParam(), {"signing"}, {}, {}, [](Config& c) { c.threads = 1; });
  const std::string org = gw.root().organizationId;
  const std::string address = newEthereumAddress(gw.rootClient(), org, "signer");
  WriteBlocker blocker(gw);
  std::vector<std::future<HttpResponse>> waiting;
  for (int i = 0; i < 3; ++i)
    waiting.push_back(std::async(std::launch::async, [&, i] {
      return gw.rootClient().post(
          "/public/v1/submit/sign_raw_payload",
          activityBody("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", org,
                       signParams(address, "0000000" + std::to_string(i),
                                  "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_KECCAK256")));
    }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto query =
      std::async(std::launch::async, [&] { return gw.rootClient().query("whoami", orgBody(org)); });
  ASSERT_EQ(query.wait_for(std::chrono::seconds(3)), std::future_status::ready)
      << "the query waited for the signatures' commit";
  EXPECT_EQ(query.get()->getValue<std::string>("organizationId"), org);
  for (auto& w : waiting)
    EXPECT_EQ(w.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
        << "a signature was answered before its commit";

  blocker.release();
  for (auto& w : waiting) {
    ASSERT_EQ(w.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(w.get().status, 200);
  }
}

}  // namespace
}  // namespace signet::test
