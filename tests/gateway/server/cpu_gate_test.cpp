// How many of a server's threads run at once (server/cpu_gate.hpp): the permits, and a stuck
// holder's permit lent to a waiter.
#include <gtest/gtest.h>

#include <future>
#include <thread>
#include <vector>

#include "server/cpu_gate.hpp"

namespace signet {
namespace {

using std::chrono::milliseconds;

TEST(CpuGateTest, NoMoreThreadsThanPermitsWorkAtOnceAndEveryThreadGetsItsTurn) {
  CpuGate gate(2, std::chrono::seconds(30));  // nothing counts as stuck here
  std::atomic<bool> stop{false};
  std::atomic<int> working{0}, most{0}, done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 5; ++t)
    threads.emplace_back([&] {
      CpuGate::Seat seat(gate);
      for (int turns = 0; turns < 20;) {
        if (!seat.enter(stop, milliseconds(50))) continue;
        CpuGate::Work work(seat);
        int now = ++working;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(milliseconds(1));
        --working;
        ++turns;
      }
      ++done;  // the seat goes with the thread, and its permit to a waiter
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), 5);  // a holder's permit went to a waiter when its thread ended
  EXPECT_LE(most.load(), 2);
  EXPECT_EQ(gate.holders(), 0);
}

TEST(CpuGateTest, AWaiterStaysOutWhileTheHoldersAreNotStuck) {
  CpuGate gate(1, std::chrono::seconds(30));
  std::atomic<bool> stop{false};
  CpuGate::Seat holder(gate), waiter(gate);
  ASSERT_TRUE(holder.enter(stop, milliseconds(0)));
  {
    CpuGate::Work work(holder);
    EXPECT_FALSE(waiter.enter(stop, milliseconds(100)));
  }
  // Between its events a holder keeps its permit.
  EXPECT_FALSE(waiter.enter(stop, milliseconds(20)));
  EXPECT_TRUE(holder.enter(stop, milliseconds(0)));
  EXPECT_EQ(gate.holders(), 1);
}

TEST(CpuGateTest, AStuckHoldersPermitIsLentAndGivenBackWhenItsWorkEnds) {
  CpuGate gate(1, milliseconds(20));
  std::atomic<bool> stop{false};
  std::promise<void> unblock;
  std::promise<void> working;
  std::thread stuck([&] {
    CpuGate::Seat seat(gate);
    EXPECT_TRUE(seat.enter(stop, milliseconds(0)));
    {
      CpuGate::Work work(seat);  // an outbound call that does not answer
      working.set_value();
      unblock.get_future().wait();
    }
    // Its work over, the gate holds one more than it allows: this holder gives its permit up.
    EXPECT_EQ(gate.holders(), 2);
    seat.leaveIfOver();
    EXPECT_EQ(gate.holders(), 1);
    EXPECT_FALSE(seat.enter(stop, milliseconds(50)));
  });
  working.get_future().wait();
  CpuGate::Seat waiter(gate);
  // Let in once the holder has been on one event for 20 ms; the bound is generous, not timed.
  EXPECT_TRUE(waiter.enter(stop, std::chrono::seconds(10)));
  EXPECT_EQ(gate.holders(), 2);
  unblock.set_value();
  stuck.join();
  EXPECT_EQ(gate.holders(), 1);
}

TEST(CpuGateTest, WaitersSeeTheirStopFlag) {
  CpuGate gate(1, std::chrono::seconds(30));
  std::atomic<bool> stop{false};
  CpuGate::Seat holder(gate);
  ASSERT_TRUE(holder.enter(stop, milliseconds(0)));
  std::thread waiter([&] {
    CpuGate::Seat seat(gate);
    EXPECT_FALSE(seat.enter(stop, std::chrono::seconds(30)));
  });
  std::this_thread::sleep_for(milliseconds(20));
  auto stopped = std::chrono::steady_clock::now();
  stop = true;
  gate.wakeAll();
  waiter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, std::chrono::seconds(10));  // not its 30
}

// Several holders stuck at once: each lets one more waiter in, every waiter in its turn
// watching, none left asleep while the gate has room.
TEST(CpuGateTest, EveryStuckHolderLetsOneMoreWaiterIn) {
  CpuGate gate(3, milliseconds(20));
  std::atomic<bool> stop{false};
  std::promise<void> unblock;
  std::shared_future<void> unblocked = unblock.get_future().share();
  std::atomic<int> working{0};
  std::vector<std::thread> stuck;
  for (int t = 0; t < 3; ++t)
    stuck.emplace_back([&] {
      CpuGate::Seat seat(gate);
      if (!seat.enter(stop, milliseconds(0))) return ++working, void();
      CpuGate::Work work(seat);
      ++working;
      unblocked.wait();
    });
  while (working < 3) std::this_thread::yield();
  EXPECT_EQ(gate.holders(), 3);
  std::atomic<int> entered{0};
  std::vector<std::thread> waiters;
  for (int t = 0; t < 3; ++t)
    waiters.emplace_back([&] {
      CpuGate::Seat seat(gate);
      // Far longer than a watcher's 20 ms turns: a waiter left without a watcher would sit out
      // its whole wait, and the test would fail by its deadline, not hang.
      if (!seat.enter(stop, std::chrono::seconds(20))) return;
      ++entered;
      unblocked.wait();  // holds its permit until every waiter is in
    });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (entered < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(entered.load(), 3);
  EXPECT_EQ(gate.holders(), 6);
  unblock.set_value();
  for (auto& t : waiters) t.join();
  for (auto& t : stuck) t.join();
}

}  // namespace
}  // namespace signet
