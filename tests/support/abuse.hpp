// Abuse scenarios against a gateway on loopback, and a legitimate client that calls whoami
// throughout: tests/gateway/server/abuse_test.cpp asserts on what the legitimate client saw, and
// tests/bench/abuse_bench.cpp prints it. Attackers connect from other loopback addresses
// (127.0.0.2 and up), as they would from other hosts; every scenario ends by itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "signet/client.hpp"

namespace signet::test {

struct LegitStats {
  size_t calls = 0;
  size_t answered = 0;        // 200, however long it took
  size_t answeredInTime = 0;  // 200 within the client's deadline
  double p99Ms = 0;
  double successRate() const { return calls ? double(answeredInTime) / double(calls) : 0; }
};

// Calls whoami every 20 ms from 127.0.0.1 on fresh connections until stop(); an answer counts
// as in time within `deadlineMs`.
class LegitClient {
 public:
  LegitClient(Client client, std::string organizationId, int deadlineMs = 500);
  ~LegitClient();
  LegitStats stop();

 private:
  Client client_;
  std::string organizationId_;
  int deadlineMs_;
  std::atomic<bool> stopping_{false};
  std::vector<double> latenciesMs_;
  size_t answered_ = 0;
  size_t inTime_ = 0;
  std::thread thread_;
};

// `sockets` connections that send a request's head one byte a second, for `seconds`.
// Returns how many the server answered 408 and closed by then.
size_t slowloris(uint16_t port, int sockets, int seconds);
// `count` connections that send nothing, held for `seconds`; returns how many connected.
size_t idleConnections(uint16_t port, int count, int seconds);
// What the server sends a connection from `source` that sends nothing, until it closes it or
// 2 s pass: a refusal, or "" when the connection was accepted and left idle.
std::string answerToSilentConnection(uint16_t port, const std::string& source);
// `threads` threads posting unstamped requests as fast as they can for `seconds`, from one
// address; returns how many answers of each kind came: {401s, 429s, others}.
struct FloodAnswers {
  size_t unauthenticated = 0;
  size_t rateLimited = 0;
  size_t other = 0;
};
FloodAnswers unauthenticatedFlood(uint16_t port, int threads, int seconds);

// `clients` concurrent keep-alive connections from 127.0.0.1, each sending `requests`
// stamped whoami calls one after another. Returns the wall time until every answer came,
// and how many were 200.
struct BurstResult {
  int64_t wallMs = 0;
  size_t ok = 0;
  size_t unavailable = 0;  // answered 503
  size_t total = 0;
};
BurstResult keepAliveClients(uint16_t port, int clients, int requests, Stamper& stamper,
                             const std::string& organizationId);

}  // namespace signet::test
