#include "cpu_gate.hpp"

#include <algorithm>
#include <thread>

namespace signet {

namespace {
int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

CpuGate::CpuGate(int permits, std::chrono::milliseconds stuckAfter)
    : permits_(std::max(1, permits)),
      stuckAfterNs_(std::chrono::duration_cast<std::chrono::nanoseconds>(stuckAfter).count()) {}

int CpuGate::perMachine() {
  return 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int CpuGate::allowedLocked(int64_t now) const {
  int stuck = 0;
  for (const Seat* seat : seats_) {
    int64_t since = seat->busySince_.load(std::memory_order_relaxed);
    if (since != 0 && now - since >= stuckAfterNs_) ++stuck;
  }
  return permits_ + stuck;
}

void CpuGate::leaveLocked(Seat& seat) {
  seat.holds_ = false;
  holding_.fetch_sub(1);
}

void CpuGate::wakeAll() {
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

CpuGate::Seat::Seat(CpuGate& gate) : gate_(gate) {
  std::lock_guard lock(gate_.mutex_);
  gate_.seats_.push_back(this);
}

CpuGate::Seat::~Seat() {
  std::lock_guard lock(gate_.mutex_);
  if (holds_) {
    gate_.leaveLocked(*this);
    gate_.changed_.notify_one();  // a waiter may take the permit
  }
  gate_.seats_.remove(this);
}

bool CpuGate::Seat::enter(const std::atomic<bool>& stop, std::chrono::milliseconds wait) {
  if (holds_) return true;
  auto deadline = std::chrono::steady_clock::now() + wait;
  std::unique_lock lock(gate_.mutex_);
  bool watched = false;
  for (;;) {
    if (stop) break;
    if (gate_.holding_.load() < gate_.allowedLocked(nowNs())) {
      holds_ = true;
      gate_.holding_.fetch_add(1);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    if (gate_.watching_ && !watched) {
      gate_.changed_.wait_until(lock, deadline);
      continue;
    }
    // One waiter watches for holders getting stuck, waking every stuckAfter; the others sleep
    // until a thread leaves, the watcher hands over, or their deadline.
    gate_.watching_ = watched = true;
    gate_.changed_.wait_until(
        lock, std::min(deadline, std::chrono::steady_clock::now() +
                                     std::chrono::nanoseconds(gate_.stuckAfterNs_)));
  }
  if (watched) gate_.watching_ = false;
  // Whoever leaves the wait with no watcher left wakes a waiter to watch (or to take a permit
  // more, when several holders are stuck).
  if (!gate_.watching_) gate_.changed_.notify_one();
  return holds_;
}

void CpuGate::Seat::startWork() {
  busySince_.store(nowNs(), std::memory_order_relaxed);
}

void CpuGate::Seat::endWork() {
  busySince_.store(0, std::memory_order_relaxed);
}

void CpuGate::Seat::leaveIfOver() {
  // Only when a stuck holder let a waiter in can the gate hold more than its permits.
  if (!holds_ || gate_.holding_.load() <= gate_.permits_) return;
  std::lock_guard lock(gate_.mutex_);
  if (gate_.holding_.load() > gate_.allowedLocked(nowNs())) gate_.leaveLocked(*this);
}

}  // namespace signet
