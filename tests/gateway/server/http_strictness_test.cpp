// The HTTP front end held to the letter, over raw sockets on loopback (a client library would
// tidy up exactly what these tests send): requests framed two ways, repeated stamps, NUL in
// text, preflights without a length, HEAD, reason phrases, and another organization's
// evaluations.
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "auth/authenticator.hpp"
#include "support/log_capture.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

struct RawReply {
  std::string statusLine;
  std::string head;
  std::string body;
  bool closed = false;  // the server closed the connection after answering
};

// Reads one answer from `socket`: its head, then Content-Length bytes of body (none for HEAD).
// `data` holds what was received and not yet read; what follows the answer stays there for the
// next one. Every read is bounded by the socket's receive timeout.
RawReply readReply(Poco::Net::StreamSocket& socket, std::string& data, bool head = false) {
  char buf[65536];
  size_t headEnd;
  while ((headEnd = data.find("\r\n\r\n")) == std::string::npos) {
    int n = socket.receiveBytes(buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("connection closed before an answer");
    data.append(buf, static_cast<size_t>(n));
  }
  RawReply reply;
  reply.head = data.substr(0, headEnd);
  reply.statusLine = reply.head.substr(0, reply.head.find("\r\n"));
  size_t length = 0;
  std::string lower = asciiLower(reply.head);
  if (auto at = lower.find("content-length: "); at != std::string::npos && !head)
    length = std::stoul(lower.substr(at + 16));
  while (data.size() < headEnd + 4 + length) {
    int n = socket.receiveBytes(buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("connection closed inside an answer's body");
    data.append(buf, static_cast<size_t>(n));
  }
  // After a HEAD, whatever arrived behind the head is its body, which must be empty.
  reply.body = head ? data.substr(headEnd + 4) : data.substr(headEnd + 4, length);
  data.erase(0, headEnd + 4 + reply.body.size());
  return reply;
}

// Sends `request` as it is and reads one answer (readReply), then whether the server closes.
RawReply rawExchange(uint16_t port, const std::string& request, bool head = false) {
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
  socket.setReceiveTimeout(Poco::Timespan(5, 0));
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  std::string data;
  RawReply reply;
  try {
    reply = readReply(socket, data, head);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " to: " + request.substr(0, request.find("\r\n\r\n")));
  }
  // A closed connection reads 0 at once; an open one times out (kept short here).
  char buf[1024];
  socket.setReceiveTimeout(Poco::Timespan(0, 300'000));
  try {
    reply.closed = socket.receiveBytes(buf, sizeof buf) == 0;
  } catch (const Poco::TimeoutException&) {
    reply.closed = false;
  }
  return reply;
}

std::string errorMessage(const RawReply& reply) {
  return json::parseObject(reply.body, "error")->getValue<std::string>("message");
}

class HttpStrictnessTest : public BackendTest {};
SIGNET_BACKEND_SUITE(HttpStrictnessTest);

TEST_P(HttpStrictnessTest, AmbiguousFramingIsRefusedWithJsonAndTheConnectionClosed) {
  TestGateway gw(GetParam());
  const uint16_t port = gw.port();
  struct Case {
    std::string headers;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",
            "both Content-Length and Transfer-Encoding"},
           {"Content-Length: 2\r\nContent-Length: 3\r\n", "2 Content-Length headers"},
           {"Content-Length: 2\r\nContent-Length: 2\r\n", "2 Content-Length headers"},
           {"Transfer-Encoding: gzip\r\n", "is not supported"},
           {"Content-Length: 9999999999999999\r\n", "is beyond any body"},
           {"Content-Length: 2x\r\n", "is not a decimal length"},
           {"Content-Length: 18446744073709551617\r\n", "is beyond any body"},
       }) {
    auto reply = rawExchange(
        port, "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\n" + c.headers + "\r\n{}");
    EXPECT_EQ(reply.statusLine, "HTTP/1.1 400 Bad Request") << c.headers;
    EXPECT_NE(errorMessage(reply).find(c.expected), std::string::npos) << errorMessage(reply);
    EXPECT_TRUE(reply.closed) << c.headers;
  }
}

TEST_P(HttpStrictnessTest, PreflightsAndBodylessPostsAreAnsweredAtOnce) {
  TestGateway gw(GetParam());
  const uint16_t port = gw.port();
  auto started = std::chrono::steady_clock::now();
  // What a browser sends: no Content-Length, and the connection kept for the next request.
  auto preflight =
      rawExchange(port,
                  "OPTIONS /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\n"
                  "Origin: http://app.test\r\nAccess-Control-Request-Method: POST\r\n\r\n");
  EXPECT_EQ(preflight.statusLine, "HTTP/1.1 204 No Content");
  EXPECT_FALSE(preflight.closed);
  auto post = rawExchange(port, "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(post.statusLine, "HTTP/1.1 401 Unauthorized");
  EXPECT_NE(errorMessage(post).find("not stamped"), std::string::npos);
  // Each exchange also waits 0.3 s to see whether the server closes; neither waited on a body
  // (that would take the 30 s body deadline).
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

// A client that shuts its sending side after its request (as HTTP/1.0 tools do) still gets
// its answer, and then the connection closes.
TEST_P(HttpStrictnessTest, AClientThatStopsSendingAfterItsRequestIsStillAnswered) {
  TestGateway gw(GetParam());
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
  socket.setReceiveTimeout(Poco::Timespan(5, 0));
  std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  socket.shutdownSend();
  std::string answer;
  char buf[1024];
  for (int n; (n = socket.receiveBytes(buf, sizeof buf)) > 0;)
    answer.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(answer.substr(0, answer.find("\r\n")), "HTTP/1.1 200 OK");
  EXPECT_NE(answer.find(R"("status":"ok")"), std::string::npos) << answer;
}

// Requests sent back to back in one write are answered in order on the same connection (the
// loop parses the second after writing the first answer itself), and so is one after them.
TEST_P(HttpStrictnessTest, PipelinedRequestsAreAnsweredInOrderOnOneConnection) {
  TestGateway gw(GetParam());
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
  socket.setReceiveTimeout(Poco::Timespan(5, 0));
  std::string three =
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
  socket.sendBytes(three.data(), static_cast<int>(three.size()));
  std::string data;
  EXPECT_EQ(readReply(socket, data).statusLine, "HTTP/1.1 200 OK");
  auto second = readReply(socket, data);
  EXPECT_EQ(second.statusLine, "HTTP/1.1 404 Not Found");
  EXPECT_NE(second.body.find("/nowhere"), std::string::npos) << second.body;
  EXPECT_EQ(readReply(socket, data).statusLine, "HTTP/1.1 401 Unauthorized");
  std::string fourth = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  socket.sendBytes(fourth.data(), static_cast<int>(fourth.size()));
  EXPECT_EQ(readReply(socket, data).statusLine, "HTTP/1.1 200 OK");
  EXPECT_TRUE(data.empty());
}

// An answer larger than the sockets hold, to a client that reads it only later: the worker
// writes what the socket takes, the loop writes the rest as the client reads, every byte
// arrives in order, and the connection then serves the next request.
TEST_P(HttpStrictnessTest, AnAnswerLargerThanTheSocketTakesArrivesWholeToASlowReader) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  // Eight memos of 1 MiB each, stored directly (the activity caps a memo's text at 1,024).
  std::vector<std::string> texts;
  gw.write([&](Db& db) {
    for (int i = 0; i < 8; ++i) {
      texts.push_back(std::string(1 << 20, static_cast<char>('a' + i)));
      db.exec(
          "INSERT INTO memo_entries (id, organization_id, activity_id, author_user_id, text, "
          "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
          {"memo-" + std::to_string(i), org, "activity", "user", texts.back(), int64_t{1000} + i});
    }
  });
  std::string body = json::stringify(orgBody(org));
  auto [header, stamp] = gw.rootStamper()->stamp(body);
  std::string request = "POST /public/v1/query/signet_list_memos HTTP/1.1\r\nHost: x\r\n" + header +
                        ": " + stamp + "\r\nContent-Type: application/json\r\n" +
                        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress::IPv4);
  socket.setReceiveBufferSize(4096);  // before connecting: the window the server sees stays small
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the worker meets a full socket
  std::string data;
  auto answer = readReply(socket, data);
  ASSERT_EQ(answer.statusLine, "HTTP/1.1 200 OK") << answer.body.substr(0, 500);
  auto memos = json::parseObject(answer.body, "answer")->getArray("memos");
  ASSERT_EQ(memos->size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(memos->getObject(static_cast<unsigned>(i))->getValue<std::string>("text"), texts[i])
        << "memo " << i;
  std::string next = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  socket.sendBytes(next.data(), static_cast<int>(next.size()));
  EXPECT_EQ(readReply(socket, data).statusLine, "HTTP/1.1 200 OK");
}

TEST_P(HttpStrictnessTest, HeadAnswersWhatGetAnswersWithoutTheBody) {
  TestGateway gw(GetParam());
  const uint16_t port = gw.port();
  auto get = rawExchange(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  auto head = rawExchange(port, "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n", /*head=*/true);
  EXPECT_EQ(get.statusLine, "HTTP/1.1 200 OK");
  EXPECT_EQ(head.statusLine, "HTTP/1.1 200 OK");
  EXPECT_FALSE(get.body.empty());
  EXPECT_TRUE(head.body.empty());
  auto unknown = rawExchange(port, "HEAD /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", /*head=*/true);
  EXPECT_EQ(unknown.statusLine, "HTTP/1.1 404 Not Found");
}

TEST_P(HttpStrictnessTest, RepeatedStampsAndNulInTextAreRefusedNamingThem) {
  TestGateway gw(GetParam(), {"memo", "signing"});
  Org org(gw);
  const uint16_t port = gw.port();
  std::string body = R"({"organizationId":")" + org.org() + R"("})";
  auto twice = rawExchange(port,
                           "POST /public/v1/query/whoami HTTP/1.1\r\nHost: x\r\n"
                           "X-Stamp: a\r\nX-Stamp: b\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(twice.statusLine, "HTTP/1.1 400 Bad Request");
  EXPECT_NE(errorMessage(twice).find("X-Stamp header is repeated"), std::string::npos);

  // A wallet named "\u0000" or "a\u0000b", through the stamped API: refused before anything is
  // stored, naming the field; the same name without the NUL is accepted.
  json::Object accounts = json::parseObject(R"({"a":[{"curve":"CURVE_SECP256K1",
      "pathFormat":"PATH_FORMAT_BIP32","path":"m/44'/60'/0'/0/0",
      "addressFormat":"ADDRESS_FORMAT_ETHEREUM"}]})",
                                            "accounts");
  for (const std::string& name : {std::string(1, '\0'), std::string("a\0b", 3)}) {
    json::Object p = json::object();
    p->set("walletName", name);
    p->set("accounts", accounts->getArray("a"));
    try {
      gw.rootClient().submit("create_wallet", "ACTIVITY_TYPE_CREATE_WALLET",
                             gw.root().organizationId, p);
      ADD_FAILURE() << "a wallet name holding NUL was accepted";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400);
      EXPECT_NE(std::string(e.what()).find("parameters.walletName"), std::string::npos) << e.what();
    }
  }
  json::Object list = json::object();
  list->set("organizationId", gw.root().organizationId);
  EXPECT_EQ(gw.rootClient().query("list_wallets", list)->getArray("wallets")->size(), 0u);
  json::Object activities = json::object();
  activities->set("organizationId", gw.root().organizationId);
  json::Array stored = gw.rootClient().query("list_activities", activities)->getArray("activities");
  for (const auto& a : *stored)
    EXPECT_NE(a.extract<json::Object>()->getValue<std::string>("type"),
              "ACTIVITY_TYPE_CREATE_WALLET");
}

// A query, a submission and a stamped plugin route take the same authenticate step
// (Authenticator): the same refusal for each thing a stamp lacks, and the same acceptance.
TEST_P(HttpStrictnessTest, QueriesSubmissionsAndStampedRoutesAuthenticateAlike) {
  TestGateway gw(GetParam(), {"memo", "signing"});
  const std::string org = gw.root().organizationId;
  const std::string now = std::to_string(gw.gateway().nowMs());
  auto stranger = ApiKeyStamper::fromHex(std::string(64, '1'));  // registered nowhere
  struct Entry {
    std::string path;
    std::string body;
  };
  for (const Entry& e : std::vector<Entry>{
           {"/public/v1/query/whoami", R"({"organizationId":")" + org + R"("})"},
           {"/public/v1/submit/create_wallet",
            R"({"type":"ACTIVITY_TYPE_CREATE_WALLET","timestampMs":")" + now +
                R"(","organizationId":")" + org +
                R"(","parameters":{"walletName":"alike","accounts":[]}})"},
           {"/plugins/memo/latest", R"({"organizationId":")" + org + R"("})"},
       }) {
    auto send = [&](const std::string& stampLines) {  // the answer, not whether it closes
      Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", gw.port()));
      socket.setReceiveTimeout(Poco::Timespan(5, 0));
      std::string request = "POST " + e.path + " HTTP/1.1\r\nHost: x\r\n" + stampLines +
                            "Content-Length: " + std::to_string(e.body.size()) + "\r\n\r\n" +
                            e.body;
      socket.sendBytes(request.data(), static_cast<int>(request.size()));
      std::string data;
      return readReply(socket, data);
    };
    auto line = [](const std::pair<std::string, std::string>& header) {
      return header.first + ": " + header.second + "\r\n";
    };
    const std::string good = line(gw.rootStamper()->stamp(e.body));

    auto unstamped = send("");
    EXPECT_EQ(unstamped.statusLine, "HTTP/1.1 401 Unauthorized") << e.path;
    EXPECT_NE(errorMessage(unstamped).find("not stamped"), std::string::npos) << e.path;

    auto twice = send(good + good);
    EXPECT_EQ(twice.statusLine, "HTTP/1.1 400 Bad Request") << e.path;
    EXPECT_NE(errorMessage(twice).find("X-Stamp header is repeated"), std::string::npos);

    // Signed over other bytes: refused before the body is read, so before any organization.
    auto otherBytes = send(line(gw.rootStamper()->stamp(e.body + " ")));
    EXPECT_EQ(otherBytes.statusLine, "HTTP/1.1 401 Unauthorized") << e.path;

    auto unknown = send(line(stranger->stamp(e.body)));
    EXPECT_EQ(unknown.statusLine, "HTTP/1.1 401 Unauthorized") << e.path;
    EXPECT_NE(errorMessage(unknown).find(kUnknownKeyMessage), std::string::npos)
        << errorMessage(unknown);

    auto accepted = send(good);
    EXPECT_EQ(accepted.statusLine, "HTTP/1.1 200 OK") << e.path << " " << accepted.body;
  }
}

// What the log shows of a request line is escaped: bytes a client sends cannot reach the
// operator's terminal as they are.
TEST_P(HttpStrictnessTest, LoggedRequestLinesAreEscaped) {
  TestGateway gw(GetParam());
  std::vector<std::string> lines;
  {
    LogCapture capture("signet.http");
    auto reply = rawExchange(gw.port(), "GET /caf\xc3\xa9\\x HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(reply.statusLine, "HTTP/1.1 404 Not Found");
    lines = capture.lines();
  }
  bool found = false;
  for (const auto& line : lines) {
    if (line.find("/caf") == std::string::npos) continue;
    found = true;
    // The line is JSON; the path in it is the bytes the client sent, escaped.
    EXPECT_EQ(json::parseObject(line, "log line")->getValue<std::string>("path"),
              R"(/caf\xc3\xa9\x5cx)")
        << line;
    for (unsigned char c : line) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << line;
  }
  EXPECT_TRUE(found);
}

TEST_P(HttpStrictnessTest, DuplicateJsonKeysAreRefusedNamingTheKey) {
  TestGateway gw(GetParam());
  Client root = gw.rootClient();
  const std::string& org = gw.root().organizationId;
  // Poco would keep the last value; another reader may keep the first.
  auto reply = root.post("/public/v1/query/whoami", R"({"organizationId":")" + org +
                                                        R"(","organizationId":")" + org + R"("})");
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find(R"(duplicate key \"organizationId\")"), std::string::npos)
      << reply.body;
  // Nested objects too, and a repeated key in sibling objects is fine.
  std::string memo = activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", org, json::object());
  memo.replace(memo.find("\"parameters\":{}"), 15, R"("parameters":{"text":"a","text":"b"})");
  auto nested = root.post("/public/v1/submit/signet_create_memo", memo);
  EXPECT_EQ(nested.status, 400);
  EXPECT_NE(nested.body.find(R"(duplicate key \"text\")"), std::string::npos) << nested.body;
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), 0);
}

TEST_P(HttpStrictnessTest, AnActivityPastItsByteCapIsRefusedBeforeAnythingIsStored) {
  TestGateway gw(GetParam(), {"memo"}, {}, {}, [](Config& c) { c.server.maxActivityBytes = 400; });
  json::Object p = json::object();
  p->set("text", std::string(500, 'x'));
  auto reply = gw.rootClient().post(
      "/public/v1/submit/signet_create_memo",
      activityBody("ACTIVITY_TYPE_SIGNET_CREATE_MEMO", gw.root().organizationId, p));
  EXPECT_EQ(reply.status, 413);
  EXPECT_NE(reply.body.find("limits.maxActivityBytes"), std::string::npos) << reply.body;
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), 0);
  // Queries keep the general body limit.
  EXPECT_EQ(gw.rootClient().query("whoami", orgBody(gw.root().organizationId))->has("userId"),
            true);
}

TEST_P(HttpStrictnessTest, AnotherOrganizationsEvaluationsAreNotFoundLikeItsActivity) {
  TestGateway gw(GetParam());
  Org org(gw);
  std::string alice = org.user("alice");
  org.policy("memos", "EFFECT_ALLOW", "activity.resource == 'MEMO'");
  json::Object memo = json::object();
  memo->set("text", "ours");
  auto activity = org.as(alice).submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO",
                                       org.org(), memo);
  std::string id = activity->getValue<std::string>("id");

  json::Object own = json::object();
  own->set("organizationId", org.org());
  own->set("activityId", id);
  EXPECT_GT(org.root().query("get_policy_evaluations", own)->getArray("policyEvaluations")->size(),
            0u);

  auto [other, otherStamper] = gw.createOrganization("Other Org");
  auto intruder = gw.clientWith(otherStamper);
  for (const char* query : {"get_activity", "get_policy_evaluations"}) {
    json::Object q = json::object();
    q->set("organizationId", other.organizationId);
    q->set("activityId", id);
    try {
      intruder.query(query, q);
      ADD_FAILURE() << query << " answered for another organization's activity";
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 404) << query << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace signet::test
