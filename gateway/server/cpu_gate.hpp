// How many of a server's request threads run at once: a few a core (the permits), however
// many threads there are.
//
// The HTTP front end keeps many threads (limits.threads) so that requests which block, on an
// outbound call, a commit's fsync or a PostgreSQL round trip, leave threads for the others. But
// with every thread polling one epoll, a loaded server woke a different, cold thread for each
// event and ran more of them than it has cores: on two cores the default install's signature
// cost 2.8 context switches, against 1.8 with the gate, and its rate was 14 % lower
// (docs/performance.md). With the gate, a thread polls only while it holds a permit, and keeps
// it from one event to the next, so under load the same few threads, warm, take event after
// event.
//
// A holder that blocks keeps its permit; so that blocked holders cannot starve the others, one
// that has been on a single event for longer than `stuckAfter` stops counting, and a waiting
// thread takes a permit more. It is how Go's scheduler hands the processor of a thread stuck in
// a system call to another (sysmon's retake). Once the stuck thread's event ends, the first
// holder between events to find the gate over its allowance gives its permit back.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>

namespace signet {

class CpuGate {
 public:
  // permits: how many threads run at once, at least one.
  explicit CpuGate(int permits,
                   std::chrono::milliseconds stuckAfter = std::chrono::milliseconds(20));
  CpuGate(const CpuGate&) = delete;
  CpuGate& operator=(const CpuGate&) = delete;

  // Two permits a core, so that a thread in a commit's fsync does not leave a core idle. Each
  // server has a gate of its own: a holder idle in one server's poll would otherwise keep the
  // permit from another server's requests.
  static int perMachine();

  // Threads holding a permit now (tests, and the next engineer's debugger).
  int holders() const { return holding_.load(); }

  // One thread's place at the gate, for the thread's life.
  class Seat {
   public:
    explicit Seat(CpuGate& gate);
    ~Seat();
    Seat(const Seat&) = delete;
    Seat& operator=(const Seat&) = delete;

    // Before the thread polls: returns once it holds a permit (at once when it kept its own),
    // or, without one, when `stop` is set or `wait` passed (the thread's loop looks again).
    bool enter(const std::atomic<bool>& stop, std::chrono::milliseconds wait);
    // Around the work of one event or queued request (Work).
    void startWork();
    void endWork();
    // Between events: gives the permit back if the gate holds more than it now allows.
    void leaveIfOver();

   private:
    friend class CpuGate;
    CpuGate& gate_;
    bool holds_ = false;
    std::atomic<int64_t> busySince_{0};  // steady_clock nanoseconds; 0: not working
  };

  // A seat's work, for the scope's life.
  class Work {
   public:
    explicit Work(Seat& seat) : seat_(seat) { seat_.startWork(); }
    ~Work() { seat_.endWork(); }
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;

   private:
    Seat& seat_;
  };

  // Wakes every waiting thread to look at its stop flag.
  void wakeAll();

 private:
  int allowedLocked(int64_t now) const;
  void leaveLocked(Seat& seat);

  const int permits_;
  const int64_t stuckAfterNs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<int> holding_{0};
  bool watching_ = false;  // a waiter waits with a short timeout, to see holders get stuck
  std::list<Seat*> seats_;
};

}  // namespace signet
