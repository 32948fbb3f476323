// The abuse scenarios of tests/gateway/server/abuse_test.cpp as figures: under each attack, the
// legitimate client's share of whoami calls answered within 500 ms and its p99 latency, and
// what the attack itself got. Prints; asserts nothing.
#include <cstdio>

#include "support/abuse.hpp"
#include "support/test_gateway.hpp"

using namespace signet;
using namespace signet::test;

namespace {

void print(const char* scenario, const LegitStats& s, const std::string& attack) {
  std::printf("%-34s legit %5.1f %% of %3zu calls within 500 ms, p99 %7.1f ms | %s\n", scenario,
              100.0 * s.successRate(), s.calls, s.p99Ms, attack.c_str());
}
}  // namespace

int main() {
  std::printf("abuse scenarios (SQLite, loopback; attackers from 127.0.0.2 and up)\n");
  {
    TestGateway gw(Backend::kSqlite);
    LegitClient legit(gw.rootClient(), gw.root().organizationId);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    print("no attack", legit.stop(), "-");
  }
  {
    TestGateway gw(Backend::kSqlite);
    LegitClient legit(gw.rootClient(), gw.root().organizationId);
    size_t dropped = slowloris(gw.port(), 40, 12);  // past the 10 s head deadline
    print("40 slowloris sockets, 12 s", legit.stop(),
          std::to_string(dropped) + " answered 408 and closed at the head deadline");
  }
  {
    TestGateway gw(Backend::kSqlite);
    LegitClient legit(gw.rootClient(), gw.root().organizationId);
    size_t held = idleConnections(gw.port(), 2000, 4);
    print("2,000 idle connections, 4 s", legit.stop(), std::to_string(held) + " connected");
  }
  {
    TestGateway gw(Backend::kSqlite);
    LegitClient legit(gw.rootClient(), gw.root().organizationId);
    auto burst = keepAliveClients(gw.port(), 100, 5, *gw.rootStamper(), gw.root().organizationId);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    print("100 keep-alive clients x 5 calls", legit.stop(),
          std::to_string(burst.ok) + "/" + std::to_string(burst.total) + " answered 200 in " +
              std::to_string(burst.wallMs) + " ms");
  }
  {
    TestGateway gw(Backend::kSqlite);
    LegitClient legit(gw.rootClient(), gw.root().organizationId);
    auto flood = unauthenticatedFlood(gw.port(), 8, 5);
    print("unauthenticated flood, 8 threads, 5 s", legit.stop(),
          std::to_string(flood.unauthenticated) + " x 401, " + std::to_string(flood.rateLimited) +
              " x 429, " + std::to_string(flood.other) + " other");
  }
  return 0;
}
