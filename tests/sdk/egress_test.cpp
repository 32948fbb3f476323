// The egress policy (signet/egress.hpp): every address form the policy must refuse, that a refused
// destination is never connected to, one deadline for a peer that trickles, bounds that refuse at
// once, and an ordinary exchange. The peers are raw sockets on loopback, so that the test does
// not share the client's reading of HTTP.
#include "signet/egress.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include "support/tcp_peer.hpp"

namespace signet::egress {
namespace {

using namespace std::chrono_literals;

using test::TcpPeer;
using Peer = TcpPeer;
constexpr auto silent = &TcpPeer::silent;
constexpr auto readHead = &TcpPeer::readHead;
constexpr auto sendAll = &TcpPeer::sendAll;

Rules rules(std::chrono::milliseconds timeout, bool internal = true) {
  return {.peer = "test peer",
          .deadline = Clock::now() + timeout,
          .allowHttp = true,
          .allowInternal = internal};
}

std::string detailOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Code::kUnavailable) << e.what();
    return e.detailCode();
  }
  ADD_FAILURE() << "the call did not fail";
  return "";
}

TEST(EgressAddressTest, EveryFormIsClassified) {
  struct Row {
    const char* text;
    Range range;
  };
  // clang-format off
  const Row rows[] = {
      {"8.8.8.8", Range::kPublic},             {"172.32.0.1", Range::kPublic},
      {"100.128.0.1", Range::kPublic},         {"0.0.0.0", Range::kUnspecified},
      {"0.1.2.3", Range::kUnspecified},        {"127.0.0.1", Range::kLoopback},
      {"127.255.255.254", Range::kLoopback},   {"10.1.2.3", Range::kPrivate},
      {"172.16.0.1", Range::kPrivate},         {"172.31.255.255", Range::kPrivate},
      {"192.168.1.1", Range::kPrivate},        {"100.64.0.1", Range::kSharedCgnat},
      {"169.254.169.254", Range::kLinkLocal},  {"224.0.0.1", Range::kMulticast},
      {"239.255.255.250", Range::kMulticast},  {"255.255.255.255", Range::kBroadcast},
      {"240.0.0.1", Range::kReserved},         {"192.0.0.8", Range::kReserved},
      {"192.0.2.1", Range::kDocumentation},    {"198.51.100.7", Range::kDocumentation},
      {"203.0.113.9", Range::kDocumentation},  {"198.18.0.1", Range::kBenchmarking},
      {"2001:4860:4860::8888", Range::kPublic}, {"2606:4700::1111", Range::kPublic},
      {"::", Range::kUnspecified},             {"::1", Range::kLoopback},
      {"[::1]", Range::kLoopback},
      // IPv4-mapped and IPv4-compatible forms are what they carry.
      {"::ffff:127.0.0.1", Range::kLoopback},  {"::ffff:10.0.0.1", Range::kPrivate},
      {"::ffff:8.8.8.8", Range::kPublic},      {"::127.0.0.1", Range::kLoopback},
      {"::10.0.0.1", Range::kPrivate},         {"::169.254.169.254", Range::kLinkLocal},
      // NAT64: the well-known prefix carries its IPv4 host; the local-use one is local.
      {"64:ff9b::7f00:1", Range::kLoopback},   {"64:ff9b::a9fe:a9fe", Range::kLinkLocal},
      {"64:ff9b::808:808", Range::kPublic},    {"64:ff9b:1::7f00:1", Range::kLocalTranslator},
      {"64:ff9b:1::808:808", Range::kLocalTranslator},
      // 6to4 carries its IPv4 host in bits 16 to 47.
      {"2002:7f00:1::", Range::kLoopback},     {"2002:a00:1::1", Range::kPrivate},
      {"2002:c0a8:101::1", Range::kPrivate},   {"2002:808:808::1", Range::kPublic},
      {"fc00::1", Range::kUniqueLocal},        {"fd12:3456::1", Range::kUniqueLocal},
      {"fe80::1", Range::kLinkLocal},          {"febf::1", Range::kLinkLocal},
      {"fec0::1", Range::kSiteLocal},          {"feff::1", Range::kSiteLocal},
      {"ff02::1", Range::kMulticast},          {"2001:db8::1", Range::kDocumentation},
      {"3fff::1", Range::kDocumentation},      {"2001:2::1", Range::kBenchmarking},
      {"2001::1", Range::kTunnel},             {"2001:10::1", Range::kTunnel},
      {"2001:20::1", Range::kTunnel},          {"100::1", Range::kReserved},
      {"4000::1", Range::kReserved},           {"::2:3:4:5", Range::kReserved},
  };
  // clang-format on
  for (const auto& row : rows) {
    auto a = parseAddress(row.text);
    ASSERT_TRUE(a) << row.text;
    EXPECT_EQ(describe(classify(*a)), std::string(describe(row.range))) << row.text;
  }
  // Forms that are not literals here: resolve() checks what they resolve to instead.
  for (const char* text : {"127.1", "0x7f.0.0.1", "2130706433", "localhost", "", "[::1",
                           "fe80::1%eth0", "1.2.3.4.5", "::ffff:1.2.3.256", "::1]"})
    EXPECT_FALSE(parseAddress(text)) << text;
  EXPECT_EQ(toString(*parseAddress("::ffff:7f00:1")), "::ffff:127.0.0.1");
}

TEST(EgressCallTest, ARefusedDestinationIsNeverConnectedTo) {
  Peer counting(silent);
  std::string port = std::to_string(counting.port());
  // The address literal, names and numeric forms that resolve to loopback: all refused after
  // resolution, before any connection.
  for (const std::string& url :
       {"http://127.0.0.1:" + port + "/", "https://127.0.0.1:" + port + "/x",
        "http://localhost:" + port + "/", "http://2130706433:" + port + "/",
        "http://0x7f.1:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/",
        "http://[::127.0.0.1]:" + port + "/"})
    EXPECT_EQ(detailOf([&] { exchange({.url = url}, rules(2s, /*internal=*/false)); }), kRefused)
        << url;
  EXPECT_EQ(counting.accepted(), 0);
  // Plain http:// only where the operator allowed it; user-info never.
  Rules httpsOnly = rules(2s);
  httpsOnly.allowHttp = false;
  EXPECT_EQ(detailOf([&] { exchange({.url = counting.url()}, httpsOnly); }), kRefused);
  EXPECT_EQ(
      detailOf([&] { exchange({.url = "http://user:pass@127.0.0.1:" + port + "/"}, rules(2s)); }),
      kRefused);
  EXPECT_EQ(counting.accepted(), 0);
  EXPECT_EQ(detailOf([&] { resolve("127.0.0.1", counting.port(), rules(2s, false)); }), kRefused);
  EXPECT_EQ(resolve("127.0.0.1", counting.port(), rules(2s, true)).size(), 1u);
}

TEST(EgressCallTest, OneDeadlineCoversATricklingAnswer) {
  // A peer that answers a head at once, then one byte of its body every 100 ms: 50 s in all.
  Peer trickling([](int fd, const std::atomic<bool>& stopping) {
    readHead(fd);
    sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n");
    for (int i = 0; i < 500 && !stopping; ++i) {
      sendAll(fd, "x");
      std::this_thread::sleep_for(100ms);
    }
  });
  Peer silentPeer(silent);
  for (const Peer* peer : {&trickling, &silentPeer}) {
    auto started = Clock::now();
    std::string detail;
    try {
      exchange({.url = peer->url()}, rules(1s));
    } catch (const Error& e) {
      detail = e.detailCode();
      EXPECT_NE(std::string(e.what()).find("no answer in time"), std::string::npos) << e.what();
    }
    EXPECT_EQ(detail, kFailed);
    // The deadline is 1 s; the margin is for a loaded machine, far below what the peer takes.
    EXPECT_LT(Clock::now() - started, 10s);
  }
}

TEST(EgressCallTest, BoundsRefuseAtOnceWhenFull) {
  Limits before = limits();
  configure({.maxConcurrent = 2, .maxPerDestination = 1});
  Peer a(silent), b(silent), c(silent), d(silent);
  auto start = [](const Peer& p) {
    auto done = std::make_shared<std::promise<std::string>>();
    exchangeAsync({.url = p.url()}, rules(3s), [done](std::variant<Answer, Error> outcome) {
      auto* e = std::get_if<Error>(&outcome);
      done->set_value(e ? e->detailCode() : "answered");
    });
    return done->get_future();
  };
  std::future<std::string> first, second, third, sameAgain, background;
  {
    RequestScope request;
    // Calls start in the order they are made (one egress thread), so each finds the slots the
    // ones before it took.
    first = start(a);
    sameAgain = start(a);  // a's one slot is taken
    second = start(b);
    third = start(c);  // both request slots are taken
  }
  background = start(d);  // background work is bound per destination only
  EXPECT_EQ(sameAgain.get(), kBusy);
  EXPECT_EQ(third.get(), kBusy);
  EXPECT_EQ(first.get(), kFailed);  // each ran to its deadline
  EXPECT_EQ(second.get(), kFailed);
  EXPECT_EQ(background.get(), kFailed);
  EXPECT_EQ(d.accepted(), 1);
  EXPECT_EQ(c.accepted(), 0);
  EXPECT_EQ(inFlight(), 0);
  configure(before);
}

TEST(EgressCallTest, AnAnswerIsReadAndRedirectsAreNotFollowed) {
  Peer answering([](int fd, const std::atomic<bool>&) {
    readHead(fd);
    sendAll(fd,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=60\r\n"
            "Content-Length: 11\r\n\r\n{\"ok\":true}");
  });
  auto answer = exchange({.url = answering.url()}, rules(5s));
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "{\"ok\":true}");
  EXPECT_EQ(answer.cacheControl, "max-age=60");

  Peer target(silent);
  Peer redirecting([&](int fd, const std::atomic<bool>&) {
    readHead(fd);
    sendAll(fd,
            "HTTP/1.1 302 Found\r\nLocation: " + target.url() + "\r\nContent-Length: 0\r\n\r\n");
  });
  EXPECT_EQ(exchange({.url = redirecting.url()}, rules(5s)).status, 302);
  EXPECT_EQ(target.accepted(), 0);

  Peer large([](int fd, const std::atomic<bool>&) {
    readHead(fd);
    sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n" + std::string(4096, 'y'));
  });
  Rules small = rules(5s);
  small.maxAnswerBytes = 1024;
  EXPECT_EQ(detailOf([&] { exchange({.url = large.url()}, small); }), kFailed);
}

}  // namespace
}  // namespace signet::egress
